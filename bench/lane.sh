#!/usr/bin/env bash
# make bench-lane: the fast lane (Docs/protocol.md §9) against iperf3 between the same two network namespaces,
# in one run. Needs root (ip netns, tc), iperf3, and nft where the kernel has no sch_netem.
#
#   1. 100 MiB over the lane on a plain veth pair, and iperf3 (TCP, 100 MiB) on the same pair;
#   2. the same on a link shaped like a wired gigabit LAN (tbf 1gbit), and on a Wi-Fi-like link (netem delay 5ms
#      loss 0.5% rate 50mbit; without sch_netem: tbf 50mbit and nft dropping 0.5%, no delay: the results say which);
#   3. 1 MiB over BLE alone (the in-memory radio at the VM's measured L2CAP rate, 350 kB/s: lane-netns --no-lane),
#      for the lane-to-BLE ratio;
#   4. on the plain veth again: hostile connections to each offered port (random bytes, silence, a replayed
#      HELLO), and 1 GiB with the veth taken down twice for 3 s (LANE_BENCH_BIG to change the size, 0 to skip).
#
# lane-netns runs two engines in one process, each engine's lane sockets in its own namespace, so the bytes
# cross the veth pair as they would between two machines. Rates are the item's bytes over the time from the switch
# to the lane to the receiver's confirmation (the sealed stream's tags and the handshake count against the lane).
# The last lines give one ratio per goal, and the CPU both ends spent per MB, lane and iperf3: on the plain veth the
# two ends share this host's cores, so there the CPU per byte decides the ratio (the lane seals and opens every byte,
# XChaCha20-Poly1305, iperf3 only copies it). Everything goes to bench/results/lane-<time>.txt. Everything runs under
# nice -n 19 (the lane and iperf3 alike): on a shared machine the figures are taken beside whatever else runs, and
# the header line gives the load average.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${LANE_BENCH_SIZE:-$((100 << 20))}
BIG=${LANE_BENCH_BIG:-$((1 << 30))}

[[ $(id -u) -eq 0 ]] || { echo "bench-lane: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "bench-lane: iperf3 is missing (scripts/deps.sh bench)" >&2; exit 1; }

nice -n 19 swift build -c release --product lane-netns >/dev/null
TOOL="$(swift build -c release --show-bin-path)/lane-netns"
NICE=(nice -n 19)
mkdir -p bench/results
RESULTS="bench/results/lane-$(date -u +%Y%m%d-%H%M%S).txt"

# shellcheck source=scripts/netns-pair.sh
. scripts/netns-pair.sh
netns_pair b 10.28.1 bench-lane

# iperf3's TCP goodput for SIZE bytes from A to B, in MB/s, and the CPU both of its ends spent per MB (ms).
iperf() {
    "${NICE[@]}" ip netns exec "$B" iperf3 -s -1 -B 10.28.1.2 >/dev/null 2>&1 &
    local server=$!
    sleep 0.5
    "${NICE[@]}" ip netns exec "$A" iperf3 -c 10.28.1.2 -n "$SIZE" -J 2>/dev/null | python3 -c '
import json, sys
end = json.load(sys.stdin)["end"]
got, cpu = end["sum_received"], end["cpu_utilization_percent"]
mb = got["bytes"] / 1e6
print("%.3f %.3f" % (got["bits_per_second"] / 8e6, (cpu["host_total"] + cpu["remote_total"]) / 100 * got["seconds"] * 1000 / mb))'
    wait "$server" 2>/dev/null || true
}

# A field of lane-netns's RESULT line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

lane() {
    local out
    out=$("${NICE[@]}" "$TOOL" --sender-ns "$A" --receiver-ns "$B" --size "$1" "${@:2}") || { echo "$out" >&2; exit 1; }
    grep '^RESULT' <<<"$out"
}

{
    echo "# bench-lane $(date -u +%FT%TZ) on $(uname -r), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); item $SIZE bytes; all under nice -n 19"
    read -r plain_iperf plain_iperf_cpu <<<"$(iperf)"
    plain=$(lane "$SIZE")
    echo "veth iperf3 MBps=$plain_iperf cpu_ms_per_MB=$plain_iperf_cpu"
    echo "veth lane $plain"
    hostile=$(lane $((16 << 20)) --hostile)
    echo "veth hostile $hostile"
    big=""
    if ((BIG > 0)); then
        big=$(lane "$BIG" --drop "$DEV_A" --drop-at 0.3,0.6 --down 3 --max-resent $((8 << 20)))
        echo "veth big-two-drops $big"
    fi
    netns_gigabit on
    echo "# shaped: tbf rate 1gbit burst 512kb latency 20ms"
    read -r gig_iperf _ <<<"$(iperf)"
    gig=$(lane "$SIZE")
    echo "gigabit iperf3 MBps=$gig_iperf"
    echo "gigabit lane $gig"
    netns_gigabit off
    netns_wifi_like on bench-lane
    echo "# shaped: $WIFI_LIKE"
    read -r wifi_iperf _ <<<"$(iperf)"
    wifi=$(lane "$SIZE")
    echo "wifi-like iperf3 MBps=$wifi_iperf"
    echo "wifi-like lane $wifi"
    ble=$(lane $((1 << 20)) --no-lane)
    echo "ble-1MiB $ble"
    python3 - "$plain_iperf" "$plain" "$wifi_iperf" "$wifi" "$ble" "$hostile" "$big" "$((SIZE >> 20))" \
        "$gig_iperf" "$gig" "$plain_iperf_cpu" <<'EOF'
import sys
def fields(line):
    return dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
plain_iperf, plain, wifi_iperf, wifi, ble, hostile, big, mib, gig_iperf, gig, iperf_cpu = sys.argv[1:]
plain_iperf, wifi_iperf, gig_iperf, iperf_cpu = float(plain_iperf), float(wifi_iperf), float(gig_iperf), float(iperf_cpu)
plain, wifi, gig, ble, hostile = fields(plain), fields(wifi), fields(gig), fields(ble), fields(hostile)
lane_plain, lane_wifi, ble_rate = float(plain["lane_rate_MBps"]), float(wifi["lane_rate_MBps"]), float(ble["rate_MBps"])
lane_gig, lane_cpu = float(gig["lane_rate_MBps"]), float(plain["lane_cpu_ms_per_MB"])
print(f"{mib}MiB veth: {lane_plain / plain_iperf:.2f}x iperf3 ({lane_plain:.1f} of {plain_iperf:.1f} MB/s)")
print(f"{mib}MiB gigabit: {lane_gig / gig_iperf:.2f}x iperf3 ({lane_gig:.1f} of {gig_iperf:.1f} MB/s)")
print(f"{mib}MiB wifi-like: {lane_wifi / wifi_iperf:.2f}x iperf3 ({lane_wifi:.1f} of {wifi_iperf:.1f} MB/s)")
print(f"CPU per MB, both ends on this host's cores: lane {lane_cpu:.2f} ms, iperf3 {iperf_cpu:.2f} ms "
      f"({lane_cpu / iperf_cpu:.0f}x: where both are CPU-bound, the veth ratio tends to {iperf_cpu / lane_cpu:.2f}x)")
print(f"lane vs BLE: {lane_plain / ble_rate:.0f}x on veth, {lane_wifi / ble_rate:.0f}x wifi-like "
      f"(BLE 1 MiB at {ble_rate * 1000:.0f} kB/s, simulated at the VM's L2CAP rate)")
print(f"switch BLE->TCP: {float(plain['switch_s']):.3f} s veth, {float(wifi['switch_s']):.3f} s wifi-like (goal < 0.5 s)")
print(f"first byte: {float(plain['first_byte_s']):.3f} s veth, {float(wifi['first_byte_s']):.3f} s wifi-like (on BLE)")
probes = [f.split("=", 1)[1] for f in sys.argv[6].split() if f.startswith("hostile_")]   # names repeat
worst = max(float(v.split("s/")[0]) for v in probes)
said = sum(int(v.split("s/")[1].rstrip("B")) for v in probes)
print(f"hostile: {len(probes)} connections closed within {worst:.3f} s, {said} bytes said to them (goal < 1 s, 0)")
if big:
    big = fields(big)
    size = int(big["size"])
    print(f"{size >> 20}MiB two drops: intact over {big['paths']}, resent {int(big['resent_bytes']) / 1e6:.1f} MB "
          f"({int(big['resent_bytes']) / size * 100:.3f}% of the item; goal: in flight at the drops only), {float(big['rate_MBps']):.1f} MB/s overall")
EOF
} | tee "$RESULTS"
echo "results: $RESULTS"
