#!/usr/bin/env bash
# Hostile peer, item 5 of issue 14 §3: a stranger on hci2 tries to join the laptop's trust group without seeing the
# code. Pairing is numeric comparison (Docs/protocol.md §6): there is no code to type, so a guess is a pairing
# session the stranger hopes the user will confirm.
#   1. The laptop is not in pairing mode: up to HOSTILE_GUESSES (1000) HELLOs in 60 s, each a fresh session, at
#      the rate GATT allows; each is refused (ERROR 4618), the laptop drops the stranger's link a second after the
#      first (the gate), the stranger connects again each time and goes on; no HELLO is answered, at most one
#      refusal per drop is lost with the link, and the trust store is unchanged.
#   2. The laptop's user runs `handoff pair`: the stranger gets in first, runs the exchange up to the code (it
#      computes the code itself), sends a forged confirm and 50 more sessions. The user is shown the stranger's
#      code, which no device of theirs shows, and answers n: `handoff pair` fails and says why, the stranger gets
#      ERROR 4618, the other 50 sessions are refused while it lasts, the trust store is unchanged.
# Then the real desktop still continues the laptop's note (the group is intact).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

hostile_start
target=$(adapter_address hci0)
paired() { on laptop devices | awk '{ print $1, $NF }'; }   # name and id (not the range, which changes)
devices_before=$(paired)
note "laptop's devices: $devices_before"
[[ $devices_before == *desktop* ]] || fail "the laptop has not paired the desktop"

laptop_links_idle
note "1. ${HOSTILE_GUESSES:-1000} pairing attempts while the laptop is not in pairing mode"
/usr/bin/python3 "$here/hostile-peer.py" pair-guess "$target" "${HOSTILE_GUESSES:-1000}" | tee "$out/guess.txt"
rc=${PIPESTATUS[0]}
alive
((rc == 0)) || fail "hostile-peer.py pair-guess exited $rc"
grep -q "^FIGURE pair_answered 0$" "$out/guess.txt" || fail "the laptop answered a stranger's pairing"
figure_of() { sed -n "s/^FIGURE $1 //p" "$out/guess.txt" | head -n1; }
attempts=$(figure_of pair_attempts) refused=$(figure_of pair_refused) drops=$(figure_of pair_drops)
lost=$(figure_of pair_lost_to_drops) silent=$(figure_of pair_unrefused_on_live_link)
((attempts > 0)) || fail "no pairing attempt reached the laptop"
((drops >= 1)) || fail "the laptop never dropped the stranger that wrote pairing messages outside pairing mode"
# Each HELLO is refused, or its ERROR was still queued when the gate closed that link: never left unanswered on a
# link the laptop kept.
((silent == 0)) || fail "$silent attempts went unanswered on a link the laptop kept open"
((refused >= 1 && refused + lost >= attempts)) \
    || fail "$refused of $attempts attempts refused and $lost lost with a dropped link: some went unaccounted"
note "$attempts attempts, $refused refused, $lost lost with the $drops links the laptop dropped"
[[ $(paired) == "$devices_before" ]] || fail "the laptop's devices changed"

note "2. the user pairs; the stranger gets in first; the user answers n to a code no device of theirs shows"
(echo n | on laptop pair >"$work/user-pair.out" 2>&1; echo $? >"$work/user-pair.rc") &
user=$!
/usr/bin/python3 "$here/hostile-peer.py" pair-session "$target" 60 | tee "$out/session.txt"
rc=${PIPESTATUS[0]}
wait "$user"
echo "laptop\$ echo n | handoff pair"
cat "$work/user-pair.out"
alive
((rc == 0)) || fail "hostile-peer.py pair-session exited $rc"
code=$(sed -n 's/^code //p' "$out/session.txt")
[[ -n $code ]] || fail "the stranger never got a code"
grep -q "$code" "$work/user-pair.out" || fail "the user was not shown the stranger's code $code"
[[ $(cat "$work/user-pair.rc") != 0 ]] || fail "'handoff pair' succeeded"
grep -qi "pair" "$work/user-pair.out" || fail "'handoff pair' said nothing"
figure user_pair_exit "$(cat "$work/user-pair.rc")"
figure user_told "$(tail -n 1 "$work/user-pair.out")"
[[ $(paired) == "$devices_before" ]] || fail "the laptop's devices changed"

text=$'# After the pairing attempts\nstill ours\n'
offer "$text"
watch_start
wait_available 1 60
continue_expect "$text"
note "PASS: ${HOSTILE_GUESSES:-1000} + 51 sessions refused, the user told, the group intact"
