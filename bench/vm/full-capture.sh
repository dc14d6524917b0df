#!/usr/bin/env bash
# Runs one `make bench-ble` scenario with a btmon that keeps every packet. Runs INSIDE the VM, as the start of a
# scenario line of bench/ble-transport.sh:
#
#   bench/vm/full-capture.sh COMMAND [ARG...]
#
# btmon's monitor socket gets the kernel's default receive buffer (net.core.rmem_default, 208 KiB): under TCG btmon
# falls behind a burst of a few hundred K-frames, the kernel drops monitor packets for good, and the PDU counts of
# bench/l2cap-pdus.py come out low (a 64 KiB continue over L2CAP showed 202 of its ~400 K-frames). So this restarts
# the scenario's btmon (scripts/vm/guest-bluez.sh btmon-rotate, same destination) while rmem_default is 64 MiB,
# puts the default back at once (the scenario's own sockets, whose buffers shape the transfer, get the usual one),
# runs COMMAND, and after it waits until btmon has written everything it was handed (the capture stops growing),
# so the rotation that ends the scenario loses nothing
# (less than 4 KiB written in 0.5 s, at most 5 s). Exit status: COMMAND's.
set -uo pipefail

state=/run/handoff-vm
dest=$(cat "$state/btmon.dest" 2>/dev/null || true)
if [[ -n "$dest" ]]; then
    default=$(sysctl -n net.core.rmem_default) maximum=$(sysctl -n net.core.rmem_max)
    sysctl -qw net.core.rmem_max=67108864 net.core.rmem_default=67108864
    guest-bluez.sh btmon-rotate "$dest" >/dev/null
    for _ in $(seq 1 100); do [[ -s "$state/btmon.live" ]] && break; sleep 0.02; done
    sysctl -qw net.core.rmem_default="$default" net.core.rmem_max="$maximum"
    echo "full-capture: btmon restarted with a 64 MiB socket buffer (rmem_default back to $default)"
else
    echo "full-capture: no btmon capture under way ($state/btmon.dest); running without" >&2
fi
"$@"
rc=$?
if [[ -n "$dest" ]]; then
    # Drained when it grows by less than 4 KiB in 0.5 s (advertising reports alone keep it growing a little),
    # at most 5 s.
    size=-1
    for _ in $(seq 1 10); do
        now=$(stat -c %s "$state/btmon.live" 2>/dev/null || echo 0)
        ((size >= 0 && now - size < 4096)) && break
        size=$now
        sleep 0.5
    done
fi
exit "$rc"
