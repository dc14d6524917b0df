#!/usr/bin/env bash
# What a user waits for, end to end (`make bench-e2e`; issue 12 section 5): one VM boot with real bluetoothd
# (-E, so the advertisement monitor is in use) and two controllers, the demo's two daemons paired, then N runs of
# scripts/demo-e2e.sh: the laptop saves a new version of the note (`handoff note edit --stdin`), the desktop's
# `handoff watch` prints its line, `handoff continue --print` restores it there. p50 and p95 of each, from the
# save. A benchmark, not a test: it fails only when something does not work (a run that fails stops it).
# Results: bench/results/e2e-<UTC stamp>.json and .txt (and latest-e2e.txt). Times are the VM's (qemu TCG):
# compare them with each other, not with hardware.
#
#   bench/end-to-end.sh              20 runs (about 5 minutes)
#   BENCH_E2E_RUNS=5 bench/end-to-end.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
runs=${BENCH_E2E_RUNS:-20}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
results=$here/bench/results
mkdir -p "$results"
swift build --product handoffd >/dev/null
swift build --product handoff >/dev/null
run=$here/.vm/runs/$stamp-e2e
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
scripts/vm-run.sh --experimental --keep-logs --timeout $((240 + 30 * runs)) --run-dir "$run" -- \
    env HANDOFF_E2E_OUT="$run/e2e" scripts/demo-flow.sh --e2e "$runs" || status=$?
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[[ -s $run/e2e/e2e.tsv ]] || { echo "end-to-end: no measurement in $run (VM status $status)" >&2; exit 1; }
((status == 0)) || echo "end-to-end: the VM ended with status $status; summarising the runs it measured" >&2
COMMIT="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources scripts || echo '+dirty')" \
LOAD="$load_before / $load_after" RUN=$run python3 - "$run/e2e/e2e.tsv" "$results/e2e-$stamp" <<'PY'
import csv, json, os, statistics, sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))

def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]

measures = {
    "note edit returns": [float(r["saved_s"]) for r in rows],
    "watch line": [float(r["watch_s"]) for r in rows],
    "continue --print ends": [float(r["continued_s"]) for r in rows],
}
paths = sorted({r["path"] for r in rows})
lines = [f"handoff end to end, {len(rows)} runs in one VM boot (commit {os.environ['COMMIT']}; "
         f"load {os.environ['LOAD']}; {os.environ['RUN']})",
         "seconds from the save on the laptop (nearest-rank percentiles; VM time, qemu TCG):",
         f"  {'to':24} {'p50':>7} {'p95':>7} {'min':>7} {'max':>7}"]
summary = {}
for name, values in measures.items():
    p50, p95 = quantile(values, 0.5), quantile(values, 0.95)
    summary[name] = {"p50": p50, "p95": p95, "min": min(values), "max": max(values),
                     "mean": statistics.fmean(values)}
    lines.append(f"  {name:24} {p50:7.3f} {p95:7.3f} {min(values):7.3f} {max(values):7.3f}")
lines.append(f"  paths: {', '.join(paths)}")
text = "\n".join(lines) + "\n"
open(sys.argv[2] + ".txt", "w").write(text)
json.dump({"commit": os.environ["COMMIT"], "load": os.environ["LOAD"], "run": os.environ["RUN"],
           "runs": rows, "summary": summary, "paths": paths}, open(sys.argv[2] + ".json", "w"), indent=1)
print(text, end="")
PY
cp "$results/e2e-$stamp.txt" "$results/latest-e2e.txt"
exit "$status"
