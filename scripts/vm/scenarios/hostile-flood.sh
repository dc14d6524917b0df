#!/usr/bin/env bash
# Hostile peer, item 1 of issue 14 §3: a stranger on hci2 floods handoff-shaped beacons (company 0xFFFF, version 1,
# 24 random bytes; one in five pairing-beacon shaped with a random name) through btmgmt add-adv, as fast as the
# kernel acknowledges them (btvirt has no air time: a report goes out at every change of the advertising data, so
# the rate of changes is the highest advertising rate it allows). Every change is a new non-resolvable address,
# so a new device to bluetoothd. HOSTILE_FLOOD_SECONDS (20 in the tier; 60 is the long form) long.
# Asserted, during the flood: both daemons stay up, the desktop's CPU (utime+stime from /proc/PID/stat) stays under
# HOSTILE_CPU_BOUND percent of one core, its RSS does not run away, and the laptop's real update (a new version of
# the note) is seen by the desktop's `handoff watch` and continued byte-exact.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

seconds=${HOSTILE_FLOOD_SECONDS:-20}
bound=${HOSTILE_CPU_BOUND:-80}
hostile_start
v1=$'# Flood\nversion 1\n'
v2=$'# Flood\nversion 2, updated during the flood\n'
offer "$v1"
watch_start
wait_available 1 60

percent() { awk -v t="$1" -v hz="$tick" -v s="$2" 'BEGIN { printf "%.1f", t / hz / s * 100 }'; }
# At rest first (the note offered, no flood), as long as the flood, for comparison.
rest=$((seconds < 20 ? seconds : 20))
d0=$(cpu_ticks "$desktop_pid") l0=$(cpu_ticks "$laptop_pid"); t0=$(date +%s.%N)
sleep "$rest"
d1=$(cpu_ticks "$desktop_pid") l1=$(cpu_ticks "$laptop_pid"); t1=$(date +%s.%N)
rest_s=$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')
figure rest_seconds "$rest_s"
figure desktop_cpu_rest_percent "$(percent $((d1 - d0)) "$rest_s")"
figure laptop_cpu_rest_percent "$(percent $((l1 - l0)) "$rest_s")"
rss0=$(rss_kb "$desktop_pid")
kill -USR1 "$desktop_pid"

/usr/bin/python3 "$here/hostile-peer.py" flood "$seconds" >"$out/hostile.txt" 2>&1 &
flood_pid=$!
hostile_pids+=("$flood_pid")
wait_until 20 grep -q '^flooding' "$out/hostile.txt" || { cat "$out/hostile.txt" >&2; fail "the flood did not start"; }
d0=$(cpu_ticks "$desktop_pid") l0=$(cpu_ticks "$laptop_pid"); t0=$(date +%s.%N)
b0=$(cpu_ticks "$(cat /run/handoff-vm/bluetoothd.pid)")
sleep $((seconds / 4))
note "the laptop updates its note during the flood"
offer "$v2"
wait_available 2 $((seconds * 3 / 4 + 30))
seen=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
note "the desktop saw the update ${seen}s into the flood"
start=$(date +%s.%N)
continue_expect "$v2"
figure continue_during_flood_s "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f", a - b }')"
wait "$flood_pid"; flood_rc=$?
d1=$(cpu_ticks "$desktop_pid") l1=$(cpu_ticks "$laptop_pid"); t1=$(date +%s.%N)
b1=$(cpu_ticks "$(cat /run/handoff-vm/bluetoothd.pid)")
kill -USR1 "$desktop_pid"
sleep 0.5
cat "$out/hostile.txt"
((flood_rc == 0)) || fail "the flood did not run (exit $flood_rc)"
alive
flood_s=$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')
dcpu=$(percent $((d1 - d0)) "$flood_s") lcpu=$(percent $((l1 - l0)) "$flood_s")
figure flood_window_seconds "$flood_s"
figure desktop_cpu_flood_percent "$dcpu"
figure laptop_cpu_flood_percent "$lcpu"
figure bluetoothd_cpu_flood_percent "$(percent $((b1 - b0)) "$flood_s")"
figure desktop_rss_kb "$rss0 -> $(rss_kb "$desktop_pid")"
figure update_seen_after_s "$seen"
grep 'bus statistics' "$out/desktop-handoffd.log" | tail -n 2 | sed 's/^/desktop: /'
awk -v c="$dcpu" -v b="$bound" 'BEGIN { exit !(c < b) }' \
    || fail "the desktop's handoffd used ${dcpu}% of a core during the flood (bound ${bound}%)"
awk -v c="$lcpu" -v b="$bound" 'BEGIN { exit !(c < b) }' \
    || fail "the laptop's handoffd used ${lcpu}% of a core during the flood (bound ${bound}%)"
(($(rss_kb "$desktop_pid") < rss0 + 32768)) || fail "the desktop's RSS grew by more than 32 MiB during the flood"
note "PASS: up, CPU bounded (desktop ${dcpu}%, laptop ${lcpu}% of a core), the update seen and continued"
