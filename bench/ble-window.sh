#!/usr/bin/env bash
# The BLE transfer benchmark (`make bench-ble`): continue a 64 KiB and a 1 MiB note between hci0 and hci1 on the
# real bluetoothd in the VM, with HandoffKit's fetch window (the default, 16 KiB) against the baseline of asking
# for the whole stream at once (HANDOFF_FETCH_WINDOW=0), both in the same VM boot, alternating so host load
# drifts evenly over both. Prints one line per run, then the ratios, and writes them to
# bench/results/ble-window-<timestamp>.txt.
#
# Knobs (environment): BENCH_BLE_ROUNDS (rounds of 64 KiB pairs, default 2), BENCH_BLE_1M (1: also one 1 MiB
# pair, default 1). TCG on a shared host: read the ratios, not the absolute times.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${BENCH_BLE_ROUNDS:-2}
big=${BENCH_BLE_1M:-1}
results="$root/bench/results"
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
list=$(mktemp "${TMPDIR:-/tmp}/ble-window.XXXXXX")
trap 'rm -f "$list"' EXIT

bin=".build/debug/handoff-radio-scenarios"
{
    for ((i = 1; i <= rounds; i++)); do
        echo "base-64k-$i @timeout=300 @build=handoff-radio-scenarios HANDOFF_FETCH_WINDOW=0 $bin radio-continue-64k"
        echo "window-64k-$i @timeout=300 @build=handoff-radio-scenarios $bin radio-continue-64k"
    done
    if [[ $big == 1 ]]; then
        echo "base-1m-1 @timeout=630 @build=handoff-radio-scenarios HANDOFF_FETCH_WINDOW=0 $bin radio-continue-1m"
        echo "window-1m-1 @timeout=630 @build=handoff-radio-scenarios $bin radio-continue-1m"
    fi
} >"$list"

# No second tries: a failed run is a data point (it is reported), not something to hide.
set +e
HANDOFF_VM_RETRIES=0 "$root/scripts/vm-test.sh" --keep-logs --list "$list" 2>&1 | tee "$list.out"
set -e
run=$(sed -n 's/^vm-test: logs kept in //p' "$list.out" | tail -n 1)
rm -f "$list.out"
[[ -n $run && -d $run/scenarios ]] || { echo "ble-window: no run folder" >&2; exit 1; }

python3 - "$run/scenarios" "$results/ble-window-$stamp.txt" <<'PY'
import os, re, sys, statistics
folder, out = sys.argv[1], sys.argv[2]
pattern = re.compile(r"(\d+) B continued in ([\d.]+) s .*?(\d+) connection\(s\), (\d+) write\(s\), "
                     r"(\d+) notification\(s\), fetch window (\d+) B")
rows, times = [], {}
for name in sorted(os.listdir(folder)):
    if not name.endswith(".log") or ".try" in name:
        continue
    text = open(os.path.join(folder, name)).read()
    found = pattern.search(text)
    label = name[:-4]
    kind, size = label.split("-")[0], label.split("-")[1]
    if not found:
        rows.append(f"{label:14} FAILED (see {os.path.join(folder, name)})")
        continue
    seconds = float(found.group(2))
    times.setdefault((size, kind), []).append(seconds)
    rows.append(f"{label:14} {seconds:8.2f} s  {int(found.group(1)) / seconds / 1024:6.1f} KiB/s  "
                f"writes {found.group(4):>4}  notifications {found.group(5):>5}  connections {found.group(3)}  "
                f"window {found.group(6)} B")
lines = ["BLE continue on the real bluetoothd (TCG VM), fetch window vs whole-stream baseline, same boot", ""]
lines += rows + [""]
for size in ("64k", "1m"):
    base, window = times.get((size, "base")), times.get((size, "window"))
    if base and window:
        b, w = statistics.median(base), statistics.median(window)
        lines.append(f"{size}: median {w:.2f} s with the window vs {b:.2f} s baseline: "
                     f"{b / w:.2f}x the baseline's speed")
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text, end="")
print(f"ble-window: written to {out}")
PY
