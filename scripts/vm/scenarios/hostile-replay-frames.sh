#!/usr/bin/env bash
# Hostile peer, item 2 of issue 14 §3, on the air: "it replays captured beacons and transfer frames". The laptop
# offers a note with a distinctive text, title and name; the desktop continues it for real while a btmon of
# the scenario's own records. Once the desktop's link to the laptop is gone (btvirt cannot
# serve two links to one controller), a stranger on hci2 (hostile-peer.py replay-frames: python3-dbus and kernel
# L2CAP sockets, never our code) takes the desktop's recorded REQUEST from the capture, writes it to the laptop on
# the path the real continue used (an SDU on the L2CAP channel to the published PSM, or a write to the request
# characteristic), answers the CHALLENGE it gets (wire version 2) with a proof it makes up, writes a made-up DONE
# and replays the recorded DONE.
# Asserted (EngineRoundTripTests.aReplayedRequestGetsOnlySealedBytesAndNoContinuation is the model): the
# daemons stay up and answer; the stranger got a CHALLENGE and no OPEN or DATA, and none of its bytes holds the note's
# text, title, name or activity type (UTF-8, UTF-16BE, UTF-16LE); the laptop's log says the note was continued
# once for the real continue and never for the replay; offered again, the note is then continued byte-exact.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

started=$(date +%s.%N)
hostile_start
# The recording: a btmon of the scenario's own, as privacy-capture.sh runs it (a large socket buffer, decoded to
# /dev/null, written to the guest's tmpfs), not the VM's per-scenario btmon (/run/handoff-vm/btmon.live): that one
# is started while the previous scenario's link between hci0 and hci1 may still be up, and on 2026-12-04 14:33Z it
# stopped writing 17.9 s into this scenario, in the traffic on such a link, with nothing in its log. Ours starts
# once the laptop has no link, and must still run after the real continue.
laptop_links_idle
vm_btmon=$(cat /run/handoff-vm/btmon.pid 2>/dev/null)
capture=$SCENARIO_TMP/real-continue.btsnoop
rmem=$(sysctl -n net.core.rmem_default)
sysctl -qw net.core.rmem_default=33554432 || fail "cannot raise net.core.rmem_default"
btmon -w "$capture" >/dev/null 2>"$out/btmon.log" &
btmon_pid=$!
hostile_pids+=("$btmon_pid")
wait_until 10 test -s "$capture" || fail "btmon wrote nothing"
sysctl -qw net.core.rmem_default="$rmem"
name=wombat-gnomon-z4
title="Okapi jacquard № 31 — vellum"
text=$'# '"$title"$'\n- 7713 zephyrine ptarmigan brûlée xylarium №58\n- 2290 sassafras yuzu fjordlike ombré №17\n'
printf '%s' "$text" >"$out/note.md"
type=org.handoff.note
continued_line="offered $type was continued on a paired device"
told() { grep -cF "$continued_line" "$out/laptop-handoffd.log"; }
told_at_least() { (($(told) >= $1)); }

watch_start
printf '%s' "$text" | on laptop note edit "$name" --stdin --grace 300 || fail "note edit failed on the laptop"
wait_available 1 60
(($(told) == 0)) || fail "the laptop says the note was continued before anyone continued it"
continue_expect "$text"
# The DONE is written after the receiver holds everything; the source logs it a moment later.
wait_until 10 told_at_least 1 || fail "the laptop's log never said the real continue happened ('$continued_line')"
figure told_after_real_continue "$(told)"

# btmon writes each record once it has decoded it, and under TCG it trails the radio: the laptop has logged the
# DONE while the desktop's write of it was not yet in the file (2026-12-04 14:46Z). Copy once the file has not grown
# for 1 s.
capture_size() { stat -c %s "$capture"; }
capture_settled() { local a; a=$(capture_size); sleep 1; [[ $(capture_size) == "$a" ]]; }
wait_until 20 capture_settled || fail "btmon's capture kept growing for 20 s after the continue"
kill -0 "$btmon_pid" 2>/dev/null || { cat "$out/btmon.log" >&2; fail "btmon stopped before the real continue was over"; }
[[ -n $vm_btmon ]] && ! kill -0 "$vm_btmon" 2>/dev/null && note "the VM's own btmon (pid $vm_btmon) is gone"
cp "$capture" "$out/real-continue.btsnoop" || fail "cannot copy the capture"
laptop_links_idle
before=$(told)
/usr/bin/python3 "$here/hostile-peer.py" replay-frames "$(adapter_address hci0)" "$out/real-continue.btsnoop" \
    --note "$out/note.md" --secret "$title" --secret "$name" --secret "$type" | tee "$out/replay-frames.txt"
rc=${PIPESTATUS[0]}
sleep 2
alive
figure told_before_after_replay "$before -> $(told)"
((rc == 0)) || fail "hostile-peer.py replay-frames exited $rc (see above)"
grep -q '^FIGURE replay_forbidden_plaintext 0$' "$out/replay-frames.txt" \
    || fail "a secret of the note went to the stranger readable"
(($(told) == before)) || fail "the laptop was told again that the note was continued, by a replay"

# The desktop sets a note aside once it continued it, and hears an unchanged beacon only once: the laptop's user
# offers the same text again (a new activity, a new beacon), and the desktop must get it byte-exact.
start=$(date +%s.%N)
printf '%s' "$text" | on laptop note edit "$name" --stdin --grace 300 || fail "the second note edit failed on the laptop"
wait_available 2 60
continue_expect "$text"
figure continue_after_replay_s "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f", a - b }')"
wait_until 10 told_at_least $((before + 1)) || fail "the laptop's log did not say the second real continue happened"
figure told_after_second_continue "$(told)"
alive
figure scenario_s "$(awk -v a="$(date +%s.%N)" -v b="$started" 'BEGIN { printf "%.1f", a - b }')"
note "PASS: the replayed REQUEST got only sealed bytes, no continuation told, the real continue intact after"
