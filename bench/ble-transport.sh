#!/usr/bin/env bash
# The BLE transfer benchmark (`make bench-ble`): in ONE VM boot, alternating runs of
#   gatt     the GATT path (HANDOFF_TRANSPORT=gatt: notifications, 16 KiB fetch windows),
#   l2cap    the L2CAP LE CoC path (HANDOFF_TRANSPORT=l2cap: whole-SDU DATA frames, one FETCH),
#   ceiling  BlueZ's own l2test moving the same number of bytes hci1 <- hci0, kernel to kernel
#            (bench/l2cap-ceiling.sh of the L2CAP layer),
# for 3 KB, 64 KiB and 1 MiB; then 10 back-to-back continues of a 3 KB note on each path (their p50, and the phase
# breakdown of a small continue). For each run: wall time, the K-frames and ACL packets the source's controller
# sent on LE credit-based channels (bench/l2cap-pdus.py over the scenario's capture: our channel on the L2CAP path,
# bluetoothd's EATT channels, PSM 0x27, on the GATT path) against the minimum for the channel's MPS and the LE ACL
# length, and DATA frames fetched again. Prints the ratios and writes everything to
# bench/results/ble-transport-<timestamp>.txt.
#
# Knobs (environment): BENCH_BLE_ROUNDS (rounds of the 3 KB and 64 KiB triples, default 2), BENCH_BLE_1M (1: one
# 1 MiB triple, default 1), BENCH_BLE_P50 (1: the back-to-back p50 pair, default 1). TCG on a shared host: read the
# ratios within the boot, not the absolute times.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${BENCH_BLE_ROUNDS:-2}
big=${BENCH_BLE_1M:-1}
p50=${BENCH_BLE_P50:-1}
results="$root/bench/results"
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
list=$(mktemp "${TMPDIR:-/tmp}/ble-transport.XXXXXX")
trap 'rm -f "$list" "$list.out"' EXIT

bin=".build/debug/handoff-radio-scenarios"
build="@build=handoff-radio-scenarios"
ceiling=""
[[ -x "$root/bench/l2cap-ceiling.sh" ]] && ceiling="bench/l2cap-ceiling.sh"
triple() {    # size-label bytes gatt-scenario l2cap-scenario round timeout
    echo "gatt-$1-$5 @timeout=$6 $build HANDOFF_TRANSPORT=gatt $bin $3"
    echo "l2cap-$1-$5 @timeout=$6 $build HANDOFF_TRANSPORT=l2cap $bin $4"
    if [[ -n $ceiling ]]; then echo "ceiling-$1-$5 @timeout=180 $ceiling --sizes $2"; fi
}
{
    for ((i = 1; i <= rounds; i++)); do
        triple 3k 3072 radio-continue-3k radio-l2cap-3k "$i" 150
        triple 64k 65536 radio-continue-64k radio-l2cap-64k "$i" 200
    done
    [[ $big == 1 ]] && triple 1m 1048576 radio-continue-1m radio-l2cap-1m 1 630
    if [[ $p50 == 1 ]]; then
        echo "p50-l2cap-3k-1 @timeout=330 $build HANDOFF_TRANSPORT=l2cap $bin radio-back-to-back"
        echo "p50-gatt-3k-1 @timeout=430 $build HANDOFF_TRANSPORT=gatt $bin radio-back-to-back-gatt"
    fi
} >"$list"

load=$(cut -d' ' -f1-3 /proc/loadavg)
# No second tries: a failed run is a data point (it is reported), not something to hide.
set +e
HANDOFF_VM_RETRIES=0 "$root/scripts/vm-test.sh" --keep-logs --list "$list" 2>&1 | tee "$list.out"
set -e
run=$(sed -n 's/^vm-test: logs kept in //p' "$list.out" | tail -n 1)
[[ -n $run && -d $run/scenarios ]] || { echo "ble-transport: no run folder" >&2; exit 1; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$run/scenarios" "$results/ble-transport-$stamp.txt" "$root/bench/l2cap-pdus.py" "$load" "$load_after" \
    "${ceiling:-none}" <<'PY'
import json, math, os, re, statistics, subprocess, sys
folder, out, pdus, load, load_after, ceiling = sys.argv[1:7]
cont = re.compile(r"(\d+) B continued in ([\d.]+) s .*?(\d+) connection\(s\), (\d+) write\(s\), (\d+) notification\(s\)"
                  r".*?refetched (\d+) frame\(s\), over (.*?); phases: (.*)$", re.M)
ceil = re.compile(r"CEILING size=(\d+) .*?wall_ms=(\d+)(.*)$", re.M)
b2b = re.compile(r"(\d+)/(\d+) back-to-back continues .*? p50 ([\d.]+) s, min ([\d.]+) s, max ([\d.]+) s.*?"
                 r"last phases: (.*)$", re.M)

def count_pdus(name, kind):
    """K-frames and ACL packets hci0 -> hci1 (source to target) on LE CoC channels: ours (any PSM but EATT's 0x27)
    on the L2CAP path and for l2test (hci1 -> hci0 there), EATT's on the GATT path."""
    capture = os.path.join(folder, name + ".btsnoop")
    if not os.path.exists(capture):
        return None
    try:
        text = subprocess.run([sys.executable, pdus, capture, "--json"], capture_output=True, text=True,
                              timeout=600).stdout
        flows = json.loads(text or "[]")
    except (subprocess.TimeoutExpired, ValueError):
        return None
    direction = "hci1->hci0" if kind == "ceiling" else "hci0->hci1"
    chosen = [f for f in flows if f["channel"] == direction and (f["psm"] == 39) == (kind == "gatt")]
    if not chosen:
        return None
    total = {key: sum(f[key] for f in chosen) for key in ("kframes", "min_kframes", "acl", "min_acl", "bytes")}
    total["mps"] = max(f["mps"] for f in chosen)
    return total

rows, times, p50s, phases = [], {}, {}, {}
for name in sorted(os.listdir(folder), key=lambda n: (n.split("-")[1:2], n)):
    if not name.endswith(".log") or ".try" in name:
        continue
    label = name[:-4]
    kind, size = label.split("-")[0], label.split("-")[1]
    text = open(os.path.join(folder, name)).read()
    if kind == "p50":
        size, path = label.split("-")[2], label.split("-")[1]
        found = b2b.search(text)
        if not found:
            rows.append(f"{label:16} FAILED (see {os.path.join(folder, name)})")
            continue
        p50s[path] = float(found.group(3))
        phases[path] = found.group(6)
        rows.append(f"{label:16} {found.group(1)}/{found.group(2)} continues of 3 KB back to back: p50 "
                    f"{found.group(3)} s (min {found.group(4)}, max {found.group(5)})")
        continue
    found = (ceil if kind == "ceiling" else cont).search(text)
    if not found:
        rows.append(f"{label:16} FAILED (see {os.path.join(folder, name)})")
        continue
    bytes_ = int(found.group(1))
    seconds = int(found.group(2)) / 1000 if kind == "ceiling" else float(found.group(2))
    times.setdefault((size, kind), []).append(seconds)
    counted = count_pdus(label, kind)
    pdu = "PDUs not counted"
    if counted:
        pdu = (f"K-frames {counted['kframes']} (min {counted['min_kframes']} at MPS {counted['mps']}, "
               f"x{counted['kframes'] / max(counted['min_kframes'], 1):.2f}), ACL {counted['acl']} "
               f"(min {counted['min_acl']})")
    if kind == "ceiling":
        rows.append(f"{label:16} {seconds:8.3f} s  {bytes_ / seconds / 1024:8.1f} KiB/s  {pdu}")
    else:
        if kind == "l2cap":
            phases.setdefault("l2cap-" + size, found.group(8))
        rows.append(f"{label:16} {seconds:8.3f} s  {bytes_ / seconds / 1024:8.1f} KiB/s  {pdu}  refetched "
                    f"{found.group(6)}  writes {found.group(4)}  frames {found.group(5)}  over {found.group(7)}")
lines = ["BLE continue on the real bluetoothd (TCG VM, btvirt hci0 -> hci1), one boot, runs alternating",
         f"host load (1/5/15 min) before {load}, after {load_after}; ceiling: {ceiling}", ""]
lines += rows + [""]
for size in ("3k", "64k", "1m"):
    gatt, l2cap, top = (times.get((size, k)) for k in ("gatt", "l2cap", "ceiling"))
    if gatt and l2cap:
        g, l = statistics.median(gatt), statistics.median(l2cap)
        text = f"{size}: median {l:.3f} s over L2CAP vs {g:.3f} s over GATT: {g / l:.1f}x faster"
        if top:
            c = statistics.median(top)
            text += f"; l2test ceiling {c:.3f} s: L2CAP path at {c / l:.2f}x the ceiling"
        lines.append(text)
if "gatt" in p50s and "l2cap" in p50s:
    lines.append(f"3 KB continue p50 over 10: {p50s['l2cap']:.3f} s over L2CAP vs {p50s['gatt']:.3f} s over GATT "
                 f"({p50s['l2cap'] / p50s['gatt']:.2f} of it)")
for key, value in sorted(phases.items()):
    lines.append(f"phases ({key}): {value}")
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text, end="")
print(f"ble-transport: written to {out}")
PY
