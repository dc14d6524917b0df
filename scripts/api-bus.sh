#!/usr/bin/env bash
# A private D-Bus bus for one handoffd's API, with the production policy (dbus-policy/*.conf) on a system-bus-like
# default (deny owning names and calling methods unless a policy allows it). Two daemons in one machine (the VM
# demo, the bluezoo tier) each get one, while both reach BlueZ on the system bus.
#
#   scripts/api-bus.sh DIR [--owner USER]
#
# Starts dbus-daemon in the background listening on DIR/bus, prints its address (first line) and its pid
# (second line), and returns. Stop it with `kill PID`. --owner USER also lets USER own org.handoff.Handoff1
# (the production policy lets only root own it; use this to run the daemon as a normal user).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: api-bus.sh DIR [--owner USER]}
shift
owner=""
while (($#)); do
    case "$1" in
        --owner) owner=${2:?--owner needs a user}; shift 2 ;;
        *) echo "api-bus: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$dir"
extra=""
if [[ -n $owner ]]; then
    extra="<policy user=\"$owner\"><allow own=\"org.handoff.Handoff1\"/></policy>"
fi
cat > "$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <include>$here/scripts/dbus/system-bus-default.conf</include>
  <includedir>$here/dbus-policy</includedir>
  $extra
</busconfig>
CONF
exec 3>"$dir/address" 4>"$dir/pid"
dbus-daemon --config-file="$dir/bus.conf" --fork --print-address=3 --print-pid=4
exec 3>&- 4>&-
head -n1 "$dir/address"
head -n1 "$dir/pid"
