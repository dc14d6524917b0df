#!/usr/bin/env bash
# Pair, then continue at once, again and again (TESTSCRIPT for scripts/vm2/run-pair.sh; issue 24's "10 of 10"):
# the installed daemons started once through their unit, then ROUNDS rounds (HANDOFF_PAIR_ROUNDS, default 10) of:
# both `handoff pair` at the same moment (answer y); the desktop (B) `handoff watch`; the laptop (A) `handoff note
# edit` a note of its own; the watch lists it; `handoff continue --print` gets it byte-exact over L2CAP; both
# `handoff unpair` the other, after the laptop withdraws the note. Nothing is restarted in the whole run. Which machine initiates follows the host
# names (the one that sorts first: run-pair.sh --names); the script says which did in each round and fails when
# it was not the same one every time. Prints a table of each round's times; exit 0 when every round passed.
set -uo pipefail
rounds=${HANDOFF_PAIR_ROUNDS:-10}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "flow-pair: HANDOFF_PAIR_ROUNDS must be a positive number" >&2; exit 2; }
run=$HANDOFF_VM2_RUN
fail() {
    echo "flow-pair: FAIL in round $round: $*" >&2
    for m in A B; do echo "--- $m handoffd journal (tail)" >&2; vm2 "$m" 'journalctl -u handoffd --no-pager | tail -n 30' >&2; done
    exit 1
}
step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
round=0
declare -A initiations

name_A=$(vm2 A hostname) name_B=$(vm2 B hostname)
step "versions; systemctl start handoffd on both (once, for all $rounds rounds)"
for m in A B; do
    vm2 "$m" 'echo "$(hostname): $(. /etc/os-release; echo $PRETTY_NAME), Linux $(uname -r), BlueZ $(bluetoothd --version)"' || fail "$m: no answer"
    vm2 "$m" 'systemctl start handoffd && systemctl is-active handoffd' >/dev/null || fail "$m: handoffd did not start"
done
expected=$(printf '%s\n' "$name_A" "$name_B" | LC_ALL=C sort | head -n1)
echo "(expected pairing initiator: $expected, the name that sorts first)"

printf '%-6s %-10s %8s %9s %10s %8s\n' round initiator paired notified continued total >"$run/pair-rounds"
passed=0
for ((round = 1; round <= rounds; round++)); do
    step "round $round of $rounds: pair (both at once), watch, note edit, continue, unpair"
    t0=$(now)
    vm2 --bg A "pairA$round" 'echo y | handoff pair' >/dev/null
    vm2 --bg B "pairB$round" 'echo y | handoff pair' >/dev/null
    vm2 --wait A "pairA$round" 300 | sed 's/^/laptop: /'; ra=${PIPESTATUS[0]}
    vm2 --wait B "pairB$round" 300 | sed 's/^/desktop: /'; rb=${PIPESTATUS[0]}
    ((ra == 0 && rb == 0)) || fail "pairing: laptop exit $ra, desktop exit $rb"
    t_paired=$(since "$t0")
    # The initiator logs "pairing with … as the initiator" at each attempt (a failed attempt is tried again):
    # the initiator is the machine whose count grew this round, and only one may have.
    initiator="" grew=0
    for m in A B; do
        n=$(vm2 "$m" 'journalctl -u handoffd --no-pager | grep -c "as the initiator"')
        if ((n > ${initiations[$m]:-0})); then
            initiator=$(vm2 "$m" hostname) grew=$((grew + 1))
            attempts=$((n - ${initiations[$m]:-0}))
        fi
        initiations[$m]=$n
    done
    ((grew == 1)) && [[ $initiator == "$expected" ]] \
        || fail "the pairing initiator was '${initiator:-neither}' ($grew machines initiated), expected $expected"
    ((attempts > 1)) && echo "(the initiator needed $attempts attempts)"

    vm2 --bg B "watch$round" 'exec handoff watch' >/dev/null
    printf '# Round %s\nmilk x%s\n%s\n' "$round" "$round" "$(head -c 48 /dev/urandom | base64)" >"$run/note$round.txt"
    vm2 --put A "$run/note$round.txt"
    t_note=$(now)
    vm2 A "handoff note edit round$round --stdin --grace 120 </run/handoff-host/note$round.txt" || fail "note edit on the laptop"
    out=$run/B/share/cmd/watch$round.out
    for ((i = 0; i < 1800; i++)); do grep -q "^available:" "$out" 2>/dev/null && break; sleep 0.1; done
    grep -q "^available:" "$out" || { cat "$out"; fail "the desktop's watch listed nothing within 180 s of the note"; }
    t_notified=$(since "$t_note")
    vm2 B 'pkill -f "handoff watch"' >/dev/null
    vm2 B "handoff continue --print >/run/handoff-host/continued$round.txt" || fail "continue --print failed"
    cmp "$run/note$round.txt" "$run/B/share/continued$round.txt" || fail "the continued note differs from the laptop's"
    path=$(vm2 B 'journalctl -u handoffd --no-pager | grep -o "continued .* over .*" | tail -n 1')
    [[ $path == *" over l2cap"* ]] || fail "the note did not come over L2CAP (${path:-no log line})"
    t_continued=$(since "$t_note")

    # The note is withdrawn (offered again with no grace), so that the next round's watch cannot list this one.
    vm2 A "handoff note edit round$round --stdin --grace 0 </run/handoff-host/note$round.txt" >/dev/null || fail "withdrawing the note"
    vm2 A 'handoff status' | grep -q '^current activity: none' || fail "the laptop still offers an activity after --grace 0"
    vm2 A "handoff unpair $name_B" || fail "unpair on the laptop"
    vm2 B "handoff unpair $name_A" || fail "unpair on the desktop"
    [[ -z $(vm2 A 'handoff devices --json | grep "\"name\""') ]] || fail "the laptop still lists a paired device"
    t_total=$(since "$t0")
    printf '%-6s %-10s %7ss %8ss %9ss %7ss\n' "$round" "$initiator" "$t_paired" "$t_notified" "$t_continued" "$t_total" \
        | tee -a "$run/pair-rounds"
    passed=$((passed + 1))
done
step "summary"
cat "$run/pair-rounds"
echo "flow-pair: PASS ($passed of $rounds rounds paired, listed and continued the note over L2CAP; initiator $expected each time; nothing restarted)"
