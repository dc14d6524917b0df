#!/usr/bin/env bash
# Hostile peer, item 3 of issue 14 §3 (Docs/reliability.md "Hostile peers"): a stranger on hci2 (python3-dbus through
# its own bluetoothd, and kernel L2CAP sockets; hostile-peer.py gatt) connects to the laptop's GATT server while a
# note is offered, writes garbage to every characteristic (every frame kind, every length up to 512, crafted FETCH
# and pairing fragments, long writes at offsets up to 65535), reads every readable one at out-of-bounds offsets,
# reads the PSM from the ABDD3056 characteristic and sends ~450 garbage SDUs over three L2CAP channels to it.
# The laptop drops the stranger's link a second after its first garbage (the gate); the stranger connects again
# each time and goes on with the battery.
# Asserted: both daemons stay up and answer; the stranger gets no OPEN, DATA, pairing answer or accepted share
# (only ERROR frames), and is dropped; the real desktop then continues the note byte-exact.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/hostile-lib.sh"

hostile_start
text=$'# Hostile GATT\nthe real note, continued after the garbage\n'
offer "$text"
watch_start
wait_available 1 60
laptop_links_idle
note "the stranger attacks the laptop's GATT server and L2CAP channel"
before=$(rss_kb "$laptop_pid")
/usr/bin/python3 "$here/hostile-peer.py" gatt "$(adapter_address hci0)" --writes "${HOSTILE_WRITES:-300}" | tee "$out/hostile.txt"
rc=${PIPESTATUS[0]}
alive
figure laptop_rss_kb_before "$before"
figure laptop_rss_kb_after "$(rss_kb "$laptop_pid")"
((rc == 0)) || fail "hostile-peer.py gatt exited $rc (see above)"
grep -q '^FIGURE gatt_forbidden_frames 0$' "$out/hostile.txt" || fail "the stranger got a frame it must not have"
grep -q '^FIGURE l2cap_forbidden_frames 0$' "$out/hostile.txt" || fail "the stranger got a frame it must not have on the channel"
grep -q '^FIGURE gatt_drops [1-9]' "$out/hostile.txt" || fail "the laptop never dropped the stranger that wrote garbage"
grep -q 'untrusted\|4612' "$out/laptop-handoffd.log" && note "laptop log: $(grep -c 'untrusted\|4612' "$out/laptop-handoffd.log") lines about untrusted requests"
start=$(date +%s.%N)
continue_expect "$text"
figure continue_after_attack_s "$(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.2f", a - b }')"
alive
note "PASS: daemons up, no payload byte to the stranger, real continue intact"
