#!/usr/bin/env bash
# What handoffd costs in a crowded room and at rest (`make bench-cost`; issue 12): one VM boot with bluetoothd -E
# and 16 btvirt controllers (hci0 our peer, hci1 the measured handoffd, hci2..hci15 foreign advertisers), then
# bench/vm/cost-guest.sh, which says what each window measures. Results: bench/results/cost-<UTC stamp>.json and
# .txt (and latest-cost.txt). A benchmark, not a test: it fails only when something does not work.
#
#   bench/crowded-room.sh            N = 0, 10, 40; 60 s windows (about 20 min under TCG)
#   BENCH_SECONDS=30 BENCH_IDLE_SECONDS=30 BENCH_COUNTS="0 40" bench/crowded-room.sh
#   BENCH_COUNTS= bench/crowded-room.sh   at rest only (about 8 min)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$here/bench/results
mkdir -p "$results"
swift build --product handoffd >/dev/null
swift build --product handoff >/dev/null
run=$here/.vm/runs/$stamp-cost
# BENCH_COUNTS= (set and empty): the at-rest windows only, as cost-guest.sh takes it.
seconds=${BENCH_SECONDS:-60} idle=${BENCH_IDLE_SECONDS:-60} counts=${BENCH_COUNTS-0 10 40}
# Each window costs its length plus about 45 s under TCG (daemon start, settle, stop, thread counting); boot and
# bring-up of 16 controllers about 150 s. 60 s windows: about 20 minutes in all.
windows=$(( $(wc -w <<<"$counts") * 2 * (seconds + 45) + 3 * (idle + 45) ))
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
HANDOFF_VM_CONTROLLERS=16 BENCH_SECONDS=$seconds BENCH_IDLE_SECONDS=$idle BENCH_COUNTS=$counts \
    scripts/vm-run.sh --experimental --keep-logs --timeout $((windows + 300)) --run-dir "$run" -- \
    bash bench/vm/cost-guest.sh "$run/cost" || status=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[[ -s $run/cost/cost.tsv ]] || { echo "crowded-room: no measurement in $run (VM status $status)" >&2; exit 1; }
((status == 0)) || echo "crowded-room: the VM ended with status $status; summarising the windows it measured" >&2
python3 bench/cost-summary.py "$run/cost/cost.tsv" "$results/cost-$stamp" \
    --commit "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo '+dirty')" \
    --load "$load_before / $load_after" --run "$run"
cp "$results/cost-$stamp.txt" "$results/latest-cost.txt"
cat "$results/cost-$stamp.txt"
exit "$status"
