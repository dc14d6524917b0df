#!/usr/bin/env bash
# The fast lane on real sockets between two network namespaces (issue 28). Needs root (ip netns, tc).
#
# Makes namespaces hofl-a and hofl-b joined by a veth pair (10.28.0.1/24 <-> 10.28.0.2/24), nothing else: no
# route out, no DNS, so the traffic stays inside namespaces this script made, on this machine. Then runs
# lane-netns (two engines, BLE simulated in memory, each engine's lane sockets in one namespace) through:
#
#   upgrade   a 32 MiB share moves to the lane (paths end in tcp), bytes exact
#   hostile   random bytes, a silent connection and a replayed HELLO at each offered port: each closed within
#             1.5 s having been told nothing; the real share still completes
#   drop      the veth taken down at 30% for 6 s, then restored: the share goes back to BLE, then to the lane
#             again, arrives intact; resent_bytes counts what was in flight unacknowledged (at most 8 MiB)
#   blip      the veth down at 30% for 3 s: the lane waits it out (or leaves for BLE when the sockets' backoff
#             outlasts two stall waits), and at most 8 MiB crosses twice. A lane announced on again after one
#             stalled wait sent everything in the sockets' buffers twice; whether a 3 s outage spans a whole wait
#             depends on the ticks, so bench-lane's 1 GiB through two drops checks it too.
#   netem     a Wi-Fi-like link: netem delay 5ms loss 0.5% rate 50mbit
#
# Usage: scripts/netns-fastlane.sh [--build-path DIR] [scenario ...]   (default: all five)
# Exit 0 when every scenario passed. The namespaces are removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_PATH=""
if [[ "${1:-}" == "--build-path" ]]; then BUILD_PATH="$2"; shift 2; fi
SCENARIOS=("$@")
[[ ${#SCENARIOS[@]} -eq 0 ]] && SCENARIOS=(upgrade hostile drop blip netem)

if [[ $(id -u) -ne 0 ]]; then
    echo "netns-fastlane: needs root (ip netns, tc); run with sudo" >&2
    exit 1
fi
for tool in ip tc; do
    command -v "$tool" >/dev/null || { echo "netns-fastlane: $tool is missing (iproute2)" >&2; exit 1; }
done

if [[ -z "$BUILD_PATH" ]]; then
    nice -n 19 swift build --product lane-netns >/dev/null
    BUILD_PATH=$(swift build --show-bin-path)
fi
TOOL="$BUILD_PATH/lane-netns"
[[ -x "$TOOL" ]] || { echo "netns-fastlane: $TOOL not built" >&2; exit 1; }

A=hofl-a
B=hofl-b
cleanup() {
    ip netns del "$A" 2>/dev/null || true
    ip netns del "$B" 2>/dev/null || true
}
trap cleanup EXIT
cleanup
ip netns add "$A"
ip netns add "$B"
ip link add hofl-va netns "$A" type veth peer name hofl-vb netns "$B"
ip -n "$A" addr add 10.28.0.1/24 dev hofl-va
ip -n "$B" addr add 10.28.0.2/24 dev hofl-vb
ip -n "$A" link set hofl-va up
ip -n "$B" link set hofl-vb up
ip -n "$A" link set lo up
ip -n "$B" link set lo up
# The veth carries traffic once both ends are up (LOWER_UP): an offer made before lists no address.
linked() { ip -n "$A" -o link show hofl-va | grep -q LOWER_UP && ip -n "$B" -o link show hofl-vb | grep -q LOWER_UP; }
for _ in $(seq 50); do linked && break; sleep 0.1; done
linked || { echo "netns-fastlane: the veth pair never came up" >&2; exit 1; }

# A link shaped like Wi-Fi: netem delay 5ms loss 0.5% rate 50mbit on both ends. A kernel without sch_netem
# (CONFIG_NET_SCH_NETEM unset, as on some CI hosts) gets what it has: tbf at 50mbit and nftables dropping 0.5%
# of TCP packets at random, and no delay; the line says which.
WIFI_LIKE=""
wifi_like() {
    local ns dev
    for pair in "$A hofl-va" "$B hofl-vb"; do
        read -r ns dev <<<"$pair"
        if [[ $1 == on ]]; then
            if tc -n "$ns" qdisc add dev "$dev" root netem delay 5ms loss 0.5% rate 50mbit 2>/dev/null; then
                WIFI_LIKE="netem delay 5ms loss 0.5% rate 50mbit"
            else
                command -v nft >/dev/null || { echo "netns-fastlane: no sch_netem and no nft (nftables)" >&2; exit 1; }
                tc -n "$ns" qdisc add dev "$dev" root tbf rate 50mbit burst 64kb latency 50ms
                ip netns exec "$ns" nft add table inet hofl
                ip netns exec "$ns" nft add chain inet hofl out '{ type filter hook output priority 0; }'
                ip netns exec "$ns" nft add rule inet hofl out meta l4proto tcp numgen random mod 1000 '<' 5 drop
                WIFI_LIKE="no sch_netem in this kernel: tbf rate 50mbit, nft loss 0.5%, no delay"
            fi
        else
            tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
            ip netns exec "$ns" nft delete table inet hofl 2>/dev/null || true
        fi
    done
    [[ $1 == on ]] && echo "link: $WIFI_LIKE"
    return 0
}

failed=0
run() {
    local name=$1
    shift
    local started=$SECONDS
    local output
    if output=$("$TOOL" --sender-ns "$A" --receiver-ns "$B" "$@" 2>&1); then
        echo "PASS $name ($((SECONDS - started)) s): $(grep '^RESULT' <<<"$output" | cut -c8-)"
    else
        echo "FAIL $name ($((SECONDS - started)) s):"
        sed 's/^/    /' <<<"$output"
        failed=1
    fi
}

for scenario in "${SCENARIOS[@]}"; do
    case "$scenario" in
        upgrade) run upgrade --size $((32 << 20)) ;;
        hostile) run hostile --size $((16 << 20)) --hostile ;;
        drop) run drop --size $((48 << 20)) --drop hofl-va --drop-at 0.3 --down 6 --max-resent $((8 << 20)) ;;
        blip) run blip --size $((64 << 20)) --drop hofl-va --drop-at 0.3 --down 3 --max-resent $((8 << 20)) ;;
        netem)
            wifi_like on
            run netem --size $((16 << 20))
            wifi_like off
            ;;
        *) echo "netns-fastlane: unknown scenario $scenario" >&2; exit 2 ;;
    esac
done
exit $failed
