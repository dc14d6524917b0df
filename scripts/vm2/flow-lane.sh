#!/usr/bin/env bash
# The fast lane as installed (issue 28; TESTSCRIPT for scripts/vm2/run-pair.sh --lan): two machines that share a
# LAN (run-pair's private Ethernet, 10.77.0.0/24) and the radio, the package installed and handoffd started by its
# unit (its sandbox as shipped), the stock bus policy, both `handoff pair` at once, nothing restarted. Then:
#   - the laptop saves a 600 KiB note (above the lane's 256 KiB threshold) and the desktop `handoff continue
#     --print`s it byte-exact; the desktop's daemon logs it "over tcp";
#   - the laptop `handoff share --wait`s HANDOFF_LANE_BYTES (default 32 MiB) to the desktop, which says it went
#     "over tcp (fast lane)", and the desktop takes it byte-exact;
#   - the same share with the desktop's eth0 down goes over Bluetooth (l2cap) and arrives.
# Figures (seconds, rate) in $HANDOFF_VM2_RUN/flow-timings. Exit 0 when all of that held.
set -uo pipefail
run=$HANDOFF_VM2_RUN
bytes=${HANDOFF_LANE_BYTES:-33554432}
flow=flow-lane; fail_lines=30; source "$(dirname "${BASH_SOURCE[0]}")/flow-lib.sh"

step "versions and the LAN"
for m in A B; do
    vm2 "$m" 'echo "$(hostname): $(. /etc/os-release; echo $PRETTY_NAME), Linux $(uname -r), $(bluetoothd --version | sed "s/^/BlueZ /"), $(dpkg-query -W -f "handoff \${Version}" handoff); eth0 $(ip -4 -o addr show dev eth0 | awk "{print \$4}")"' || fail "$m: no answer"
done

step "systemctl start handoffd (the installed unit, its sandbox as shipped)"
for m in A B; do
    vm2 "$m" 'systemctl start handoffd && systemctl is-active handoffd >/dev/null && systemctl show -p RestrictAddressFamilies handoffd' \
        || fail "$m: handoffd did not start through its unit"
    said=$(vm2 "$m" 'journalctl -u handoffd --no-pager | grep -oE "fast lane: (on|off)( .*)?$" | tail -n 1')
    echo "$said"
    # The daemon checks at start that its sandbox lets it open TCP sockets and list addresses (TCPLane.selfCheck).
    [[ $said == "fast lane: on (big transfers"* ]] || fail "$m: the installed daemon cannot use the fast lane: $said"
done

pair_unless_paired
vm2 B 'handoff devices'

step "laptop: a 600 KiB note; desktop: handoff continue --print (above the lane's threshold)"
python3 -c "import random,sys; r=random.Random(28); sys.stdout.write('# Long notes\n' + ''.join(r.choice('abcdefghij klmnop\n') for _ in range(600 * 1024)))" >"$run/note.txt"
vm2 --put A "$run/note.txt"
vm2 A 'handoff note edit long --stdin --grace 600 </run/handoff-host/note.txt' >/dev/null || fail "note edit on the laptop"
vm2 B 'for i in $(seq 360); do handoff status | grep -q "^available activities: [1-9]" && exit 0; sleep 0.5; done; exit 1' >/dev/null \
    || fail "the desktop did not list the note within 180 s"
t=$(now)
vm2 B 'handoff continue --type org.handoff.note --print >/run/handoff-host/continued.txt' || fail "continue --print"
t_continue=$(since "$t")
cmp "$run/note.txt" "$run/B/share/continued.txt" || fail "the continued note differs"
line=$(vm2 B 'journalctl -u handoffd --no-pager | grep -o "continued .* over .*" | tail -n 1')
echo "desktop handoffd: $line"
[[ $line == *" over tcp"* ]] || fail "the 600 KiB note did not come over the fast lane (${line:-no log line})"
echo "continue_600KiB_tcp ${t_continue} s" | tee -a "$run/flow-timings"

share() {   # share NAME: the laptop shares NAME (in /run/handoff-host) with --wait and the desktop takes it; prints the
            # share's output, then what went wrong (status 1); called in $(…), so it returns rather than fail
    local name=$1 out
    out=$(vm2 A "handoff share --to desktop /run/handoff-host/$name --wait 2>&1") || { echo "$out"; echo "share --wait of $name failed"; return 1; }
    echo "$out"
    vm2 B "rm -rf /root/taken && mkdir /root/taken && handoff inbox take --all --to /root/taken >/dev/null && cp /root/taken/$name /run/handoff-host/taken.bin" \
        || { echo "inbox take of $name on the desktop failed"; return 1; }
    cmp "$run/$name" "$run/B/share/taken.bin" || { echo "$name differs after the share"; return 1; }
    rm -f "$run/B/share/taken.bin"
}

step "laptop: handoff share --wait of $bytes bytes; the desktop takes it"
head -c "$bytes" /dev/urandom >"$run/big.bin"
vm2 --put A "$run/big.bin"
t=$(now)
out=$(share big.bin) || { echo "$out"; fail "the share of big.bin"; }
t_share=$(since "$t")
echo "$out"
grep -q "over tcp (fast lane)" <<<"$out" || fail "the share did not say it went over the fast lane"
vm2 A 'journalctl -u handoffd --no-pager | grep -o "outbox: .* over .*" | tail -n 2'
echo "share_${bytes}_tcp ${t_share} s ($(awk -v b="$bytes" -v s="$t_share" 'BEGIN { printf "%.1f", b / s / 1e6 }') MB/s, take included)" | tee -a "$run/flow-timings"

step "the desktop leaves the LAN (eth0 down); the same kind of share goes over Bluetooth"
vm2 B 'ip link set eth0 down' || fail "could not take the desktop off the LAN"
head -c 300000 /dev/urandom >"$run/off.bin"
vm2 --put A "$run/off.bin"
t=$(now)
out=$(share off.bin) || { echo "$out"; fail "the share of off.bin off the LAN"; }
t_off=$(since "$t")
echo "$out"
grep -q "over tcp" <<<"$out" && fail "a share with no shared network says it went over tcp"
echo "share_300000_off_lan ${t_off} s" | tee -a "$run/flow-timings"
echo "flow-lane: PASS"
