#!/usr/bin/env bash
# Prints handoffd(8) in troff: the daemon's own --help text, so the page says what the binary does.
#   scripts/deb/daemon-manual.sh PATH-TO-HANDOFFD VERSION
set -euo pipefail
daemon=${1:?the handoffd binary} version=${2:?the version}
help=$("$daemon" --help)
escape() { sed 's/\\/\\e/g; s/^\([.'"'"']\)/\\\&\1/'; }
cat <<EOF2
.TH HANDOFFD 8 "" "handoff $version" "System Administration"
.SH NAME
handoffd \\- the handoff daemon: continue activities between your Linux machines over Bluetooth LE
.SH SYNOPSIS
.B /usr/libexec/handoffd
.RI [ OPTIONS ]
.SH DESCRIPTION
handoffd runs as the systemd service
.BR handoffd.service ,
started at boot or by D-Bus activation, and is used through
.BR handoff (1).
Its command line, as
.B handoffd \\-\\-help
prints it:
.PP
.nf
$(printf '%s\n' "$help" | escape)
.fi
.SH FILES
.TP
.I /var/lib/handoff
the daemon's state: its identity, the paired devices, the owner.
.TP
.I /usr/share/dbus-1/system.d/org.handoff.Handoff1.conf
who may own and call the daemon's bus name.
.SH SEE ALSO
.BR handoff (1),
.BR systemctl (1),
.BR bluetoothd (8)
EOF2
