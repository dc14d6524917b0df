#!/usr/bin/env bash
# The payload codec bench (issue 12 §5), run by bench/run.sh: encode plus decode of a 3 KB note payload through
# HandoffKit (`ActivitySnapshot.encodedPayload()` then `init(payload:)`; the Swift side is the `codec-bench` target
# in Tools/codec-bench) and through Python's plistlib, in the same run, on the same CPU. Prints the table and
# writes bench/results/codec.json.
# Knobs: BENCH_SECONDS (per rep, 1), BENCH_REPS (5), BENCH_PIN (CPU list for taskset; default the last CPU;
# none: no pinning).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${BENCH_SECONDS:-1}
reps=${BENCH_REPS:-5}
pinned=${BENCH_PIN:-$(($(nproc) - 1))}
pin=()
[[ $pinned == none ]] || pin=(taskset -c "$pinned")
say() { printf 'codec-bench: %s\n' "$*" >&2; }

say "building codec-bench (swift build -c release --product codec-bench)"
(cd "$root" && swift build -c release --product codec-bench) >/dev/null
binary="$(cd "$root" && swift build -c release --show-bin-path)/codec-bench"
swift_out=$("${pin[@]}" "$binary" --seconds "$seconds" --reps "$reps")
python_out=$("${pin[@]}" /usr/bin/python3 "$root/bench/codec/plistlib_bench.py" "$seconds" "$reps")
mkdir -p "$root/bench/results"
SWIFT_OUT=$swift_out PYTHON_OUT=$python_out COMMIT=$(git -C "$root" rev-parse --short HEAD) \
LOAD=$(cut -d' ' -f1-3 /proc/loadavg) PYVER=$(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])') \
/usr/bin/python3 - "$root/bench/results/codec.json" <<'PY'
import json, os, sys, time
ours = {r["payload"]: r for r in map(json.loads, os.environ["SWIFT_OUT"].splitlines())}
theirs = {r["payload"]: r for r in map(json.loads, os.environ["PYTHON_OUT"].splitlines())}
rows = []
print(f"{'payload':18} {'bytes':>6} {'handoff µs':>11} {'plistlib µs':>12} {'speed-up':>9}")
for name, r in ours.items():
    p = theirs[name]
    ratio = p["median_us"] / r["median_us"]
    rows.append({"payload": name, "bytes": r["bytes"], "plistlib_bytes": p["bytes"], "handoff": r, "plistlib": p,
                 "speedup_vs_plistlib": round(ratio, 2)})
    print(f"{name:18} {r['bytes']:>6} {r['median_us']:>11.2f} {p['median_us']:>12.2f} {ratio:>8.1f}x")
json.dump({"bench": "codec", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": os.environ["COMMIT"],
           "load": os.environ["LOAD"], "python": os.environ["PYVER"],
           "measure": "median µs of thread CPU time per encodedPayload() + init(payload:), against plistlib "
                      "dumps(FMT_BINARY) + loads",
           "results": rows}, open(sys.argv[1], "w"), indent=2)
PY
