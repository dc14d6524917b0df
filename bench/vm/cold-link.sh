#!/usr/bin/env bash
# Drops every LE link the adapters still hold, so that the next `make bench-ble` run is a cold continue. Runs INSIDE
# the VM, before a scenario of bench/ble-transport.sh:
#
#   bench/vm/cold-link.sh
#
# A scenario process that exits leaves its LE link up: bluetoothd made it (Device1.Connect) and keeps it, and an
# l2test link lingers in the kernel. The next run's continue then finds the peer connected and skips the connection
# (the tier's radio-l2cap-* lines measured warm links that way, after radio-continue-0). This asks bluetoothd to
# disconnect every device it reports Connected, on every adapter, and waits up to 5 s until none is. It never fails
# (what it could not do is printed, and the summary shows each run's new LE links from its capture).
set -uo pipefail

connected() {
    local path
    while read -r path; do
        [[ "$path" =~ ^/org/bluez/hci[0-9]+/dev_[0-9A-F_]+$ ]] || continue
        [[ $(busctl --system get-property org.bluez "$path" org.bluez.Device1 Connected 2>/dev/null) == "b true" ]] \
            && echo "$path"
    done < <(busctl --system tree --list org.bluez 2>/dev/null)
}

mapfile -t up < <(connected)
((${#up[@]})) || exit 0
for path in "${up[@]}"; do
    busctl --system call --timeout=5 org.bluez "$path" org.bluez.Device1 Disconnect >/dev/null 2>&1 \
        || echo "cold-link: Disconnect of $path failed" >&2
done
for _ in $(seq 1 25); do
    mapfile -t left < <(connected)
    ((${#left[@]})) || { echo "cold-link: dropped ${#up[@]} link(s): ${up[*]##*/}"; exit 0; }
    sleep 0.2
done
echo "cold-link: still connected after 5 s: ${left[*]}" >&2
exit 0
