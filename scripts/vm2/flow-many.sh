#!/usr/bin/env bash
# One source, many machines (TESTSCRIPT for scripts/vm2/run-pair.sh --machines N; issue 14's leftovers, issue 24
# §3): every VM runs the installed daemon through its unit. The laptop (A) pairs with each other machine in turn
# (both `handoff pair`, answer y), then offers one note of HANDOFF_MANY_BYTES (default 65536) bytes, and every
# receiver `handoff continue --print`s it at the same moment: each must get the bytes exactly, over L2CAP.
# Then the held-connections case: every receiver but the first stops its daemon and becomes a stranger's machine
# that holds an LE link to the laptop, the transfer service's notifications and as many L2CAP channels to its PSM
# as the laptop's kernel grants (scripts/vm/scenarios/hostile-peer.py hold, third-party parts only), while the
# first receiver continues a new note, which must arrive byte-exact; nothing the strangers hold may carry a
# readable byte. Figures: $HANDOFF_VM2_RUN/many-figures. Exit 0 when all of that held.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
run=$HANDOFF_VM2_RUN
bytes=${HANDOFF_MANY_BYTES:-65536}
receivers=()
for m in B C D E F G H I; do [[ -d $run/$m/share/cmd ]] && receivers+=("$m"); done
((${#receivers[@]})) || { echo "flow-many: no receivers (run-pair.sh --machines N)" >&2; exit 2; }
fail() {
    echo "flow-many: FAIL: $*" >&2
    for m in A "${receivers[@]}"; do echo "--- $m handoffd journal (tail)" >&2; vm2 "$m" 'journalctl -u handoffd --no-pager | tail -n 15' >&2; done
    exit 1
}
step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
figure() { echo "$1 $2" | tee -a "$run/many-figures"; }
declare -A host
for m in A "${receivers[@]}"; do host[$m]=$(vm2 "$m" hostname) || fail "$m: no answer"; done

step "${#receivers[@]} receivers; systemctl start handoffd on all $((${#receivers[@]} + 1)) machines"
for m in A "${receivers[@]}"; do vm2 --bg "$m" start 'systemctl start handoffd && systemctl is-active handoffd' >/dev/null; done
for m in A "${receivers[@]}"; do vm2 --wait "$m" start 120 >/dev/null || fail "$m: handoffd did not start"; done
vm2 A 'echo "$(hostname): $(. /etc/os-release; echo $PRETTY_NAME), Linux $(uname -r), BlueZ $(bluetoothd --version)"'
figure machines $((${#receivers[@]} + 1))

step "the laptop pairs with each receiver in turn"
t0=$(now)
for m in "${receivers[@]}"; do
    t=$(now)
    vm2 --bg A "pair$m" 'echo y | handoff pair' >/dev/null
    vm2 --bg "$m" pair 'echo y | handoff pair' >/dev/null
    vm2 --wait A "pair$m" 300 >/dev/null; ra=$?
    vm2 --wait "$m" pair 300 >/dev/null; rm_=$?
    ((ra == 0 && rm_ == 0)) || fail "pairing the laptop with ${host[$m]}: exits $ra and $rm_"
    echo "paired with ${host[$m]} in $(since "$t") s"
done
figure pairing_all_s "$(since "$t0")"
n=$(vm2 A 'handoff devices --json' | grep -c '"name"')
((n == ${#receivers[@]})) || fail "the laptop lists $n paired devices, expected ${#receivers[@]}"

step "the laptop offers a note of $bytes bytes; all ${#receivers[@]} receivers continue it at the same moment"
python3 -c "import random,sys; r=random.Random(7); sys.stdout.write('# Many\n' + ''.join(r.choice('abcdefghij klmnop\n') for _ in range($bytes - 7)))" >"$run/many.txt"
vm2 --put A "$run/many.txt"
vm2 A 'handoff note edit many --stdin --grace 600 </run/handoff-host/many.txt' || fail "note edit on the laptop"
t=$(now)
for m in "${receivers[@]}"; do
    vm2 --bg "$m" listed 'for i in $(seq 600); do handoff status | grep -q "^available activities: [1-9]" && exit 0; sleep 0.5; done; exit 1' >/dev/null
done
for m in "${receivers[@]}"; do vm2 --wait "$m" listed 330 >/dev/null || fail "${host[$m]} never listed the note"; done
figure all_listed_s "$(since "$t")"
t=$(now)
for m in "${receivers[@]}"; do
    vm2 --bg "$m" cont 'start=$(date +%s%N); handoff continue --print >/run/handoff-host/many.txt; rc=$?; echo "ms=$((($(date +%s%N) - start) / 1000000))"; exit $rc' >/dev/null
done
ok=0
for m in "${receivers[@]}"; do
    out=$(vm2 --wait "$m" cont 600); rc=$?
    path=$(vm2 "$m" 'journalctl -u handoffd --no-pager | grep -o "continued .* over [a-z0-9]*" | tail -n 1')
    if ((rc == 0)) && cmp -s "$run/many.txt" "$run/$m/share/many.txt"; then
        ok=$((ok + 1))
        echo "${host[$m]}: byte-exact, $out, ${path##* over } "
        [[ $path == *" over l2cap" ]] || fail "${host[$m]} continued over ${path##* over }, not L2CAP"
    else
        fail "${host[$m]}: continue exit $rc ($out), $(cmp "$run/many.txt" "$run/$m/share/many.txt" 2>&1)"
    fi
done
figure receivers_byte_exact "$ok/${#receivers[@]}"
figure all_continued_s "$(since "$t")"

if ((${#receivers[@]} >= 2)); then
    strangers=("${receivers[@]:1}") real=${receivers[0]}
    step "held connections: ${#strangers[@]} strangers hold links and channels to the laptop; ${host[$real]} continues"
    target=$(vm2 A "busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Address | cut -d'\"' -f2")
    cp "$here/scripts/vm/scenarios/hostile-peer.py" "$run/hostile-peer.py"
    for m in "${strangers[@]}"; do
        vm2 --put "$m" "$run/hostile-peer.py"
        vm2 "$m" 'systemctl stop handoffd' || fail "$m: cannot stop handoffd"
        vm2 --bg "$m" hold "HOSTILE_ADAPTER=hci0 HOSTILE_INDEX=0 python3 /run/handoff-host/hostile-peer.py hold $target 240 --channels ${HOSTILE_CHANNELS:-64}" >/dev/null
    done
    held=0
    for m in "${strangers[@]}"; do
        for ((i = 0; i < 300; i++)); do grep -q '^holding' "$run/$m/share/cmd/hold.out" 2>/dev/null && break; sleep 0.5; done
        grep -q '^holding' "$run/$m/share/cmd/hold.out" || { cat "$run/$m/share/cmd/hold.out"; fail "stranger ${host[$m]} could not connect to the laptop"; }
        grep -h '^hostile: holding' "$run/$m/share/cmd/hold.out" | sed "s/^/${host[$m]}: /"
        held=$((held + $(sed -n 's/^FIGURE held_channels //p' "$run/$m/share/cmd/hold.out")))
    done
    figure stranger_links "${#strangers[@]}"
    figure stranger_channels "$held"
    printf '# Held\nthe real continue while %s strangers hold the line\n' "${#strangers[@]}" >"$run/held.txt"
    vm2 --put A "$run/held.txt"
    vm2 A 'handoff note edit held --stdin --grace 600 </run/handoff-host/held.txt' || fail "note edit on the laptop"
    t=$(now)
    vm2 "$real" 'for i in $(seq 600); do handoff continue --print >/run/handoff-host/held.txt 2>/run/handoff-host/held.err && grep -q "^# Held" /run/handoff-host/held.txt && exit 0; sleep 1; done; exit 1' \
        || fail "${host[$real]} could not continue while the strangers held the line: $(cat "$run/$real/share/held.err")"
    cmp "$run/held.txt" "$run/$real/share/held.txt" || fail "the continue while held returned other bytes"
    figure continue_while_held_s "$(since "$t")"
    path=$(vm2 "$real" 'journalctl -u handoffd --no-pager | grep -o "continued .* over [a-z0-9]*" | tail -n 1')
    echo "${host[$real]}: byte-exact while held, over ${path##* over }"
    for m in "${strangers[@]}"; do vm2 "$m" 'pkill -TERM -f "hostile-peer.py hold"' >/dev/null; done
    for m in "${strangers[@]}"; do
        vm2 --wait "$m" hold 60 >"$run/$m/hold.txt"; rc=$?
        grep -h "FORBIDDEN\|GATT notifications" "$run/$m/hold.txt" | sed "s/^/${host[$m]}: /"
        grep -q FORBIDDEN "$run/$m/hold.txt" && fail "stranger ${host[$m]} read a frame it must not have"
        ((rc == 0)) || { cat "$run/$m/hold.txt"; fail "stranger ${host[$m]}: the hold reports exit $rc (something readable, or the attack failed)"; }
    done
    vm2 A 'systemctl is-active handoffd' >/dev/null || fail "the laptop's daemon is down after the hold"
fi
step "figures"
cat "$run/many-figures"
echo "flow-many: PASS"
