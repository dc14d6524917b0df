#!/usr/bin/env bash
# Hostile peer, item 4 of issue 14 §3: a stranger on hci2 holds one LE link to the laptop (btvirt allows one link
# per pair of controllers), the transfer service's notifications and as many L2CAP channels to the laptop's PSM as
# the kernel lets it open (up to 64), while the real desktop continues the note; then it lets go and the desktop
# continues once more. Asserted: both continues byte-exact (or, the first, a clear error: then the second must
# work), the daemons up, nothing readable on the stranger's channels.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

hostile_start
text=$'# Hostile hold\ncontinued while a stranger holds the line\n'
offer "$text"
watch_start
wait_available 1 60
/usr/bin/python3 "$here/hostile-peer.py" hold "$(adapter_address hci0)" 120 --channels "${HOSTILE_CHANNELS:-64}" \
    >"$out/hostile.txt" 2>&1 &
hold_pid=$!
hostile_pids+=("$hold_pid")
wait_until 150 grep -q '^holding' "$out/hostile.txt" || { cat "$out/hostile.txt" >&2; fail "the stranger could not connect"; }
cat "$out/hostile.txt"
alive
start=$(date +%s.%N)
if on desktop continue --print >"$work/held.txt" 2>"$work/held.err"; then
    [[ $(cat "$work/held.txt") == "$(printf "%s" "$text")" ]] || fail "the continue while held returned other bytes"
    note "continue while held: intact"
    figure continue_while_held "ok"
else
    note "continue while held failed: $(cat "$work/held.err")"
    grep -q '\[46[0-9][0-9]' "$work/held.err" || fail "the failure while held had no clear error code"
    figure continue_while_held "error-$(grep -o '\[46[0-9][0-9]' "$work/held.err" | head -n1 | tr -d '[')"
    held_failed=1
fi
figure continue_while_held_s "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f", a - b }')"
kill "$hold_pid"; wait "$hold_pid" 2>/dev/null
cat "$out/hostile.txt" | tail -n 5
grep -q '^FIGURE held_channel_frames 0$' "$out/hostile.txt" || note "the stranger's channels carried frames (see above)"
grep -q 'FORBIDDEN' "$out/hostile.txt" && fail "a held channel carried a forbidden frame"
alive
# After a failed continue the desktop lists the note again once it hears the laptop's beacon again, and its watch
# says so with a second "available:" line: what the user waits for before trying again.
if ((${held_failed:-0})); then
    wait_available 2 60
    note "listed again after the stranger let go ($(watch_count) 'available:' lines in all)"
fi
continue_expect "$text"
note "PASS"
