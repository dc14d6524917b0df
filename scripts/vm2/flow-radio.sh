#!/usr/bin/env bash
# What the shared emulated radio carries between the two VMs, with BlueZ's own tools only (TESTSCRIPT for
# scripts/vm2/run-pair.sh --no-deb): advertising and scanning (btmgmt), a GATT connection with service discovery
# (bluetoothctl), and LE credit-based L2CAP channels (l2test, SOCK_SEQPACKET on an LE address), with the
# throughput l2test measures. Exit 0 when each crossed from one kernel to the other.
set -uo pipefail
fail() { echo "flow-radio: FAIL: $*" >&2; exit 1; }
step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }
# btmgmt (5.66 and 5.82) prints nothing and never exits without a terminal, and bluetoothctl 5.66 quits at once
# when its stdin is not one: give them a terminal (script, util-linux).
tty() { echo "timeout $1 script -qec '${*:2}' /dev/null"; }
addr() { vm2 "$1" "busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Address | cut -d'\"' -f2"; }
A_addr=$(addr A) B_addr=$(addr B)
echo "A (laptop) hci0 $A_addr, B (desktop) hci0 $B_addr"
[[ -n $A_addr && -n $B_addr && $A_addr != "$B_addr" ]] || fail "adapter addresses: '$A_addr' '$B_addr'"

step "advertising and scanning: B advertises (btmgmt add-adv), A scans (btmgmt find -l)"
vm2 B "$(tty 20 btmgmt --index 0 add-adv -c -g -d 0c0968616e646f66662d766d32 1)" || fail "B: add-adv"
vm2 A "$(tty 30 btmgmt --index 0 find -l)" >"$HANDOFF_VM2_RUN/find.out" 2>&1
cat "$HANDOFF_VM2_RUN/find.out"
grep -qi "$B_addr" "$HANDOFF_VM2_RUN/find.out" || fail "A did not see B's advertisement"
grep -q 'handoff-vm2' "$HANDOFF_VM2_RUN/find.out" && echo "(A decoded B's advertising data: name handoff-vm2)"

step "GATT: A connects to B through bluetoothd (Device1.Connect) and resolves B's services"
# Discovery stays on while connecting (bluetoothctl 5.66 forgets a device found by a scan that has ended).
vm2 A "$(tty 60 bluetoothctl --timeout 60 scan on) >/dev/null 2>&1 & for i in \$(seq 40); do busctl introspect org.bluez /org/bluez/hci0/dev_${B_addr//:/_} >/dev/null 2>&1 && break; sleep 0.5; done; $(tty 40 bluetoothctl --timeout 30 connect $B_addr)" || fail "A: connect to B"
vm2 A "for i in \$(seq 60); do [ \"\$(busctl get-property org.bluez /org/bluez/hci0/dev_${B_addr//:/_} org.bluez.Device1 ServicesResolved)\" = 'b true' ] && break; sleep 0.5; done; busctl tree org.bluez | grep -E 'service|char' | head -20; busctl get-property org.bluez /org/bluez/hci0/dev_${B_addr//:/_} org.bluez.Device1 ServicesResolved" \
    | tee "$HANDOFF_VM2_RUN/gatt.out"
grep -q 'b true' "$HANDOFF_VM2_RUN/gatt.out" || fail "A did not resolve B's GATT services"
grep -q 'char' "$HANDOFF_VM2_RUN/gatt.out" || fail "no GATT characteristic of B on A (bluetoothd exports B's GAP/GATT/DIS)"
vm2 A "bluetoothctl disconnect $B_addr" >/dev/null 2>&1

step "LE L2CAP credit-based channel: B listens (l2test -r, PSM 0x0081), A sends 200 x 1000 bytes (l2test -s)"
vm2 B "$(tty 20 btmgmt --index 0 add-adv -c -g 1)" >/dev/null
vm2 --bg B l2r 'exec timeout 180 l2test -r -V le_public -P 0x0081 -b 1000' >/dev/null
sleep 2
start=$(date +%s.%N)
vm2 A "timeout 150 l2test -s -V le_public -P 0x0081 -b 1000 -N 200 $B_addr" | tail -n 5
rc=${PIPESTATUS[0]}
end=$(date +%s.%N)
sleep 3
cat "$HANDOFF_VM2_RUN/B/share/cmd/l2r.out" | tail -n 8
[[ $rc == 0 ]] || fail "l2test -s exited $rc"
grep -qE 'Connect from|receiving|Recevied|Received' "$HANDOFF_VM2_RUN/B/share/cmd/l2r.out" || fail "B's l2test saw no LE channel"
awk -v a="$end" -v b="$start" 'BEGIN { printf "200000 bytes sent over the LE channel in %.1f s (%.1f KiB/s, connect included)\n", a - b, 200000 / 1024 / (a - b) }' \
    | tee -a "$HANDOFF_VM2_RUN/flow-timings"
echo "flow-radio: PASS"
