#!/usr/bin/env bash
# Two machines connecting to each other at the same moment (TESTSCRIPT for scripts/vm2/run-pair.sh), as users do:
# one machine shares a file to the other while the other continues that machine's note, so each daemon makes an LE
# connection to the other at once. Installed package, its unit, stock bus policy, nothing restarted.
#
#   flow-cross.sh [ROUNDS]      default HANDOFF_CROSS_ROUNDS, else 4; the rounds alternate: odd ones the laptop (A) owns the note and shares,
#                               even ones the desktop (B)
#
# Per round: the owner saves note cross-N; the other's `handoff watch` lists a new activity; then at once the owner runs
# `handoff share --to OTHER FILE --wait` (256 KiB) and the other `handoff continue --print`. Both must succeed: the
# note byte-exact, the file delivered and taken from the inbox byte-exact. Before the rounds, a share with nothing
# else going on gives this boot's baseline. Prints how long each took, and the transfers that stalled (the sender's
# "stopped answering"). Exit 0 when every round held.
set -uo pipefail
rounds=${1:-${HANDOFF_CROSS_ROUNDS:-4}}
flow=flow-cross; fail_lines=40; fail_bluetoothd_lines=15; source "$(dirname "${BASH_SOURCE[0]}")/flow-lib.sh"
name() { [[ $1 == A ]] && echo laptop || echo desktop; }
other() { [[ $1 == A ]] && echo B || echo A; }

step "versions; start the installed units"
for m in A B; do
    vm2 "$m" 'echo "$(hostname): $(. /etc/os-release; echo $PRETTY_NAME), Linux $(uname -r), $(bluetoothd --version | sed "s/^/BlueZ /")"' || fail "$m: no answer"
    vm2 "$m" 'systemctl start handoffd && systemctl is-active handoffd' || fail "$m: handoffd did not start"
done

pair_unless_paired
for m in A B; do vm2 "$m" 'journalctl -u handoffd --no-pager | grep -q "as the initiator" && echo "(pairing initiator: $(hostname))"'; done

step "baseline in this boot: the laptop shares 256 KiB to the desktop with nothing else going on"
head -c 262144 /dev/urandom >"$HANDOFF_VM2_RUN/file-0.bin"
vm2 --put A "$HANDOFF_VM2_RUN/file-0.bin"
t0=$(now)
vm2 A 'handoff share --to desktop /run/handoff-host/file-0.bin --wait' || fail "the baseline share"
echo "baseline: 256 KiB delivered in $(since "$t0") s" | tee -a "$HANDOFF_VM2_RUN/flow-timings"
vm2 B 'handoff inbox take --all --to /root >/dev/null' || fail "inbox take of the baseline share"

vm2 --bg A watchA 'exec handoff watch' >/dev/null
vm2 --bg B watchB 'exec handoff watch' >/dev/null
sleep 1
passed=0
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then owner=A; else owner=B; fi
    peer=$(other "$owner")
    step "round $r: $(name "$owner") saves note cross-$r; $(name "$peer") waits for it"
    printf '# cross %s\nround %s of %s, %s\n' "$r" "$r" "$rounds" "$(head -c 12 /dev/urandom | base64)" >"$HANDOFF_VM2_RUN/cross-$r.txt"
    head -c 262144 /dev/urandom >"$HANDOFF_VM2_RUN/file-$r.bin"
    vm2 --put "$owner" "$HANDOFF_VM2_RUN/cross-$r.txt"
    vm2 --put "$owner" "$HANDOFF_VM2_RUN/file-$r.bin"
    watch_out=$HANDOFF_VM2_RUN/$peer/share/cmd/watch$peer.out
    seen=$(grep -c '^available:' "$watch_out" 2>/dev/null)
    vm2 "$owner" "handoff note edit cross-$r --stdin --grace 120 </run/handoff-host/cross-$r.txt" || fail "note edit on $(name "$owner")"
    for ((i = 0; i < 1800; i++)); do (($(grep -c '^available:' "$watch_out" 2>/dev/null) > seen)) && break; sleep 0.1; done
    (($(grep -c '^available:' "$watch_out" 2>/dev/null) > seen)) || fail "$(name "$peer")'s watch did not list cross-$r within 180 s"
    tail -n 1 "$watch_out"

    step "round $r: at once: $(name "$owner") shares file-$r.bin to $(name "$peer"); $(name "$peer") continues cross-$r"
    t0=$(now)
    vm2 --bg "$owner" "share$r" "handoff share --to $(name "$peer") /run/handoff-host/file-$r.bin --wait" >/dev/null
    vm2 --bg "$peer" "cont$r" "handoff continue --print >/run/handoff-host/continued-$r.txt" >/dev/null
    vm2 --wait "$peer" "cont$r" 300 | sed 's/^/continue: /'; rc=${PIPESTATUS[0]}
    tc=$(since "$t0")
    vm2 --wait "$owner" "share$r" 600 | sed 's/^/share: /'; rs=${PIPESTATUS[0]}
    ts=$(since "$t0")
    echo "(continue exit $rc after ${tc} s; share exit $rs after ${ts} s at most)"
    ((rc == 0)) || fail "round $r: continue on $(name "$peer") exited $rc"
    cmp "$HANDOFF_VM2_RUN/cross-$r.txt" "$HANDOFF_VM2_RUN/$peer/share/continued-$r.txt" || fail "round $r: the continued note differs"
    ((rs == 0)) || fail "round $r: share --wait on $(name "$owner") exited $rs"
    vm2 "$peer" "rm -rf /root/taken && mkdir /root/taken && handoff inbox take --all --to /root/taken && cp /root/taken/file-$r.bin /run/handoff-host/taken-$r.bin" \
        || fail "round $r: inbox take on $(name "$peer")"
    cmp "$HANDOFF_VM2_RUN/file-$r.bin" "$HANDOFF_VM2_RUN/$peer/share/taken-$r.bin" || fail "round $r: the taken file differs"
    echo "round $r: PASS (note byte-exact in ${tc} s, 256 KiB byte-exact within ${ts} s)" | tee -a "$HANDOFF_VM2_RUN/flow-timings"
    passed=$((passed + 1))
done
step "stalls and reconnections the daemons logged"
for m in A B; do
    vm2 "$m" 'journalctl -u handoffd --no-pager | grep -E "stopped answering|waits:|went away" | tail -n 10' | sed "s/^/$(name "$m"): /"
    vm2 "$m" 'journalctl -u bluetooth --no-pager | grep -Ei "already connected|busy|timeout" | tail -n 10' | sed "s/^/$(name "$m") bluetoothd: /"
done
echo "flow-cross: PASS ($passed of $rounds rounds)"
