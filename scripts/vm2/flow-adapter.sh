#!/usr/bin/env bash
# The daemon follows its adapter (TESTSCRIPT for scripts/vm2/run-pair.sh; issue 24 §2): on the laptop (A) the
# radio's controller is unplugged the way a USB dongle is (its btattach stopped: hci0 goes away), a virtual
# controller takes index 0 meanwhile (btvirt), and the dongle comes back as hci1. The installed daemon, started once
# through its unit and never restarted, must say at each step which adapter it uses (handoff status), stay up, and
# afterwards hand off both ways with the desktop (B) over L2CAP. Exit 0 when all of that held.
set -uo pipefail
run=$HANDOFF_VM2_RUN
fail() {
    echo "flow-adapter: FAIL: $*" >&2
    for m in A B; do echo "--- $m handoffd journal (tail)" >&2; vm2 "$m" 'journalctl -u handoffd --no-pager | tail -n 25' >&2; done
    exit 1
}
step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }
adapter_line() { vm2 A 'handoff status' | grep '^adapter:'; }
wait_adapter() {   # wait_adapter PATTERN SECONDS: until the laptop's status line matches
    local i line
    for ((i = 0; i < $2 * 2; i++)); do
        line=$(adapter_line)
        [[ $line =~ $1 ]] && { echo "laptop: $line"; return 0; }
        sleep 0.5
    done
    echo "laptop: $line" >&2
    return 1
}
continue_note() {   # continue_note FROM TO TEXT: FROM offers TEXT, TO lists it and continues it byte-exact over L2CAP
    local from=$1 to=$2 name=note$RANDOM
    printf '%s' "$3" >"$run/$name.txt"
    vm2 --put "$from" "$run/$name.txt"
    vm2 "$from" "handoff note edit $name --stdin --grace 300 </run/handoff-host/$name.txt" >/dev/null || fail "$from: note edit"
    vm2 "$to" 'for i in $(seq 240); do handoff status | grep -q "^available activities: [1-9]" && exit 0; sleep 0.5; done; exit 1' >/dev/null \
        || fail "$to never listed $from's note"
    vm2 "$to" "handoff continue --print >/run/handoff-host/$name.out" || fail "$to: continue --print"
    cmp "$run/$name.txt" "$run/$to/share/$name.out" || fail "$to continued other bytes"
    local path; path=$(vm2 "$to" 'journalctl -u handoffd --no-pager | grep -o "continued .* over [a-z0-9]*" | tail -n 1')
    [[ $path == *" over l2cap" ]] || fail "$to continued over '${path##* over }', not L2CAP"
    echo "($to continued $from's note byte-exact over l2cap)"
}

step "both: handoffd through the unit; pair"
for m in A B; do vm2 "$m" 'systemctl start handoffd && systemctl is-active handoffd' >/dev/null || fail "$m: handoffd"; done
vm2 --bg A pair 'echo y | handoff pair' >/dev/null
vm2 --bg B pair 'echo y | handoff pair' >/dev/null
vm2 --wait A pair 300 >/dev/null && vm2 --wait B pair 300 >/dev/null || fail "pairing"
wait_adapter '^adapter: hci0 F0:F0:F0:F0:F0:01' 10 || fail "the laptop does not name hci0 F0:F0:F0:F0:F0:01"
vm2 A 'handoff doctor' | grep -i adapter
continue_note A B $'# Before\nbefore the dongle moved\n'

step "the laptop's dongle unplugged (systemctl stop handoff-hci: hci0 goes away)"
vm2 A 'systemctl stop handoff-hci'
wait_adapter '^adapter: none' 30 || fail "the laptop's status does not say it has no adapter"
vm2 A 'systemctl is-active handoffd && echo "restarts: $(systemctl show -P NRestarts handoffd)"' | tr '\n' ' '; echo
[[ $(vm2 A 'systemctl show -P NRestarts handoffd') == 0 ]] || fail "handoffd was restarted"

step "a virtual controller takes index 0 meanwhile (btvirt), then the dongle comes back"
vm2 --bg A btvirt 'modprobe hci_vhci && exec btvirt -L -l1' >/dev/null
vm2 A 'for i in $(seq 60); do busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Address 2>/dev/null && exit 0; sleep 0.5; done; exit 1' \
    || fail "btvirt's controller did not appear as hci0"
wait_adapter '^adapter: hci0 ' 30 || fail "the laptop did not take the stand-in hci0"
vm2 A 'systemctl start handoff-hci'
wait_adapter '^adapter: hci1 F0:F0:F0:F0:F0:01' 90 || fail "the laptop did not go back to its dongle as hci1"
vm2 A 'journalctl -u handoffd --no-pager | grep "radio: " | grep -i "adapter" | tail -n 4'
[[ $(vm2 A 'systemctl show -P NRestarts handoffd') == 0 ]] || fail "handoffd was restarted"

step "after the move: both ways, over L2CAP"
continue_note A B $'# After\nthe laptop on hci1 now\n'
continue_note B A $'# Back\nfrom the desktop to the laptop on hci1\n'
echo "flow-adapter: PASS"
