#!/usr/bin/env bash
# Hostile peer, item 2 of issue 14 §3: a stranger on hci2 captures the laptop's real beacons from its own scan
# (hostile-peer.py capture: Device1.ManufacturerData[0xFFFF] as hci2's bluetoothd reports it), version 1's and,
# after the laptop updates its note, version 2's; then re-advertises both, round robin, for HOSTILE_REPLAY_SECONDS
# (15) through btmgmt from its own addresses. Asserted: the desktop's `handoff watch` shows no further
# "available:" line (nothing offered twice, the older version not believed again), and continue gives version 2.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

hostile_start
target=$(adapter_address hci0)
v1=$'# Replay\nversion 1\n'
v2=$'# Replay\nversion 2, the real current one\n'
offer "$v1"
watch_start
wait_available 1 60
/usr/bin/python3 "$here/hostile-peer.py" capture "$target" 30 1 | tee "$out/capture1.txt"
offer "$v2"
wait_available 2 60
/usr/bin/python3 "$here/hostile-peer.py" capture "$target" 30 2 | tee "$out/capture2.txt"
mapfile -t beacons < <(sed -n 's/^beacon //p' "$out/capture1.txt" "$out/capture2.txt" | sort -u)
((${#beacons[@]} >= 2)) || fail "the stranger captured ${#beacons[@]} distinct beacons, not both versions"
figure captured_beacons "${#beacons[@]}"
announced=$(grep -c 'available from' "$out/desktop-handoffd.log")
lines=$(watch_count)
/usr/bin/python3 "$here/hostile-peer.py" replay "${HOSTILE_REPLAY_SECONDS:-15}" "${beacons[@]}" | tee "$out/replay.txt"
((PIPESTATUS[0] == 0)) || fail "the replay did not run"
sleep 3
alive
figure watch_lines_before_after "$lines -> $(watch_count)"
figure desktop_announcements_before_after "$announced -> $(grep -c 'available from' "$out/desktop-handoffd.log")"
(($(watch_count) == lines)) || { cat "$work/watch.out"; fail "a replayed beacon was offered to the user again"; }
(($(grep -c 'available from' "$out/desktop-handoffd.log") == announced)) || fail "the desktop announced a replay"
continue_expect "$v2"
note "PASS: replays ignored, version 2 continued"
