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
#   daemons   two real handoffd, one per namespace, BlueZ mocked by bluezoo: a 192 MiB share (12x the old 16 MiB
#             cap) with `handoff share --wait` goes over the lane and is taken intact, and neither daemon's peak
#             resident memory passes 64 MiB; then as many bytes through a pipe with `handoff share -`, the CLI's
#             peak held to 64 MiB too (scripts/netns-daemons.sh)
#
# Usage: scripts/netns-fastlane.sh [--build-path DIR] [scenario ...]   (default: all six)
# Exit 0 when every scenario passed. The namespaces are removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_PATH=""
if [[ "${1:-}" == "--build-path" ]]; then BUILD_PATH="$2"; shift 2; fi
SCENARIOS=("$@")
[[ ${#SCENARIOS[@]} -eq 0 ]] && SCENARIOS=(upgrade hostile drop blip netem daemons)

if [[ $(id -u) -ne 0 ]]; then
    echo "netns-fastlane: needs root (ip netns, tc); run with sudo" >&2
    exit 1
fi
for tool in ip tc; do
    command -v "$tool" >/dev/null || { echo "netns-fastlane: $tool is missing (iproute2)" >&2; exit 1; }
done

if [[ -z "$BUILD_PATH" ]]; then
    for product in lane-netns handoffd handoff; do nice -n 19 swift build --product "$product" >/dev/null; done
    BUILD_PATH=$(swift build --show-bin-path)
fi
TOOL="$BUILD_PATH/lane-netns"
[[ -x "$TOOL" ]] || { echo "netns-fastlane: $TOOL not built" >&2; exit 1; }

# shellcheck source=scripts/netns-pair.sh
. "$(dirname "$0")/netns-pair.sh"
# shellcheck source=scripts/netns-daemons.sh
. "$(dirname "$0")/netns-daemons.sh"
netns_pair "" 10.28.0 netns-fastlane

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
        drop) run drop --size $((48 << 20)) --drop "$DEV_A" --drop-at 0.3 --down 6 --max-resent $((8 << 20)) ;;
        blip) run blip --size $((64 << 20)) --drop "$DEV_A" --drop-at 0.3 --down 3 --max-resent $((8 << 20)) ;;
        netem)
            netns_wifi_like on netns-fastlane
            echo "link: $WIFI_LIKE"
            run netem --size $((16 << 20))
            netns_wifi_like off netns-fastlane
            ;;
        daemons)
            started=$SECONDS
            if output=$(daemons_scenario 2>&1); then
                echo "PASS daemons ($((SECONDS - started)) s): $(grep '^RESULT' <<<"$output" | cut -c8-)"
            else
                echo "FAIL daemons ($((SECONDS - started)) s):"
                sed 's/^/    /' <<<"$output"
                failed=1
            fi
            ;;
        *) echo "netns-fastlane: unknown scenario $scenario" >&2; exit 2 ;;
    esac
done
exit $failed
