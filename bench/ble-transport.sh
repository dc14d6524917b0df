#!/usr/bin/env bash
# The BLE transfer benchmark (`make bench-ble`): in ONE VM boot, alternating runs of
#   gatt     the GATT path (HANDOFF_TRANSPORT=gatt: notifications, 16 KiB fetch windows),
#   l2cap    the L2CAP LE CoC path (HANDOFF_TRANSPORT=l2cap: whole-SDU DATA frames),
#   ceiling  BlueZ's own l2test moving the same number of bytes hci1 -> hci0, kernel to kernel
#            (bench/l2cap-ceiling.sh),
# for 3 KB, 64 KiB and 1 MiB, each continue a cold one (a fresh pair of engines, a new LE link: bench/vm/cold-link.sh
# drops what an earlier run left up, and each run's new LE links are counted from its capture); then 10 back-to-back
# continues of a 3 KB note on each path. For each run: wall time, the PDUs the source's controller sent (btmon,
# counted by bench/l2cap-pdus.py) against the minimum for the link's MPS or ATT MTU, and DATA frames fetched again;
# the phase breakdown (connect, services, PSM read, channel open or subscribe, REQUEST→OPEN, transfer, DONE) and the
# p50 of the 3 KB continues; the ratios and the issue's goals. bench/ble-transport-summary.py reads the scenario
# logs and writes bench/results/ble-transport-<UTC stamp>.txt and .json (and latest-ble-transport.txt).
#
# Knobs (environment):
#   BENCH_BLE_3K        cold 3 KB rounds (gatt, l2cap, ceiling), default 6: the p50 of a 3 KB continue
#   BENCH_BLE_64K       64 KiB rounds, default 2
#   BENCH_BLE_1M        1 MiB rounds over L2CAP and l2test, default 2; 0 leaves 1 MiB out
#   BENCH_BLE_1M_GATT   of those, how many also over GATT (60-150 s each in the VM), default 1
#   BENCH_BLE_B2B       1: the back-to-back pair (10 continues on each path), default 1
#   BENCH_BLE_BASELINE  1 (default): each 3 KB and 64 KiB round also runs gatt0 (and 3 KB l2cap0), the same paths
#                       with the connect nudge off (HANDOFF_CONNECT_NUDGE=0): gatt0 is the GATT path as it was
#                       before the channel and the nudge, the baseline of the issue's goals
#   BENCH_BLE_COLD_LINKS 1 (default): one run of radio-l2cap-cold-links: 6 cold continues by one pair of engines,
#                       the later ones opening the channel to the PSM they know (what a running daemon does)
#   BENCH_BLE_CAPTURE   default: btmon as every VM scenario has it, which under TCG loses packets in bursts (the
#                       PDU counts of 64 KiB and 1 MiB come out incomplete and are left out); full: every run under
#                       bench/vm/full-capture.sh, whose btmon keeps every packet but then takes guest CPU from the
#                       transfers it watches (in the boot that showed it, l2test moved 1 MiB in 9.6 s, not ~2 s):
#                       a run for the PDU counts, not for the times
#   BENCH_BLE_VM_LIMIT  seconds the whole VM may run (default 1500): the VM is shared, a hang must not hold it
#   BENCH_BLE_LOCK      the VM lock file (default /tmp/handoff-vm.lock), taken with flock around the VM run;
#                       "held" when the caller already holds it (e.g. `flock /tmp/handoff-vm.lock make bench-ble`
#                       with BENCH_BLE_LOCK=held): a second flock on it from here would wait forever
# The VM run is about 25 min with the defaults (the first boot, with 10 rounds of 3 KB, was cut at 1500 s after 6).
# TCG on a shared host: read the ratios within the boot, not
# the absolute times; the host load before and after is in the results. No scenario gets a second try: a failed run
# is a data point, reported as FAILED.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
r3k=${BENCH_BLE_3K:-6} r64k=${BENCH_BLE_64K:-2} r1m=${BENCH_BLE_1M:-2} r1mgatt=${BENCH_BLE_1M_GATT:-1}
b2b=${BENCH_BLE_B2B:-1} baseline=${BENCH_BLE_BASELINE:-1} coldlinks=${BENCH_BLE_COLD_LINKS:-1} lock=${BENCH_BLE_LOCK:-/tmp/handoff-vm.lock} limit=${BENCH_BLE_VM_LIMIT:-1500}
mode=${BENCH_BLE_CAPTURE:-default}
[[ "$mode" == default || "$mode" == full ]] || { echo "ble-transport: BENCH_BLE_CAPTURE is default or full" >&2; exit 2; }
for knob in "$r3k" "$r64k" "$r1m" "$r1mgatt" "$b2b" "$baseline" "$coldlinks" "$limit"; do
    [[ "$knob" =~ ^[0-9]+$ ]] || { echo "ble-transport: BENCH_BLE_* must be whole numbers (got '$knob')" >&2; exit 2; }
done
results="$root/bench/results"
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
list="$results/ble-transport-$stamp.list"
out=$(mktemp "${TMPDIR:-/tmp}/ble-transport.XXXXXX")
trap 'rm -f "$out"' EXIT

bin=".build/debug/handoff-radio-scenarios"
build="@build=handoff-radio-scenarios"
capture=""
[[ "$mode" == full ]] && capture="bench/vm/full-capture.sh"
cold="bench/vm/cold-link.sh;"   # every run starts without an LE link (an earlier one's would be reused)
cont() {    # NAME TIMEOUT TRANSPORT SCENARIO [ENV=VALUE]
    echo "$1 @timeout=$2 $build $cold HANDOFF_TRANSPORT=$3 ${5:-} $capture $bin $4"
}
unnudged=HANDOFF_CONNECT_NUDGE=0
ceiling() { # NAME BYTES TIMEOUT
    echo "$1 @timeout=$3 $cold $capture bench/l2cap-ceiling.sh --sizes $2"
}
{
    echo "# make bench-ble, $stamp: NAME = PATH-SIZE-ROUND (bench/ble-transport.sh)"
    rounds=$r3k
    ((r64k > rounds)) && rounds=$r64k
    ((r1m > rounds)) && rounds=$r1m
    for ((i = 1; i <= rounds; i++)); do
        if ((i <= r3k)); then
            ((baseline)) && cont "gatt0-3k-$i" 60 gatt radio-continue-3k "$unnudged"
            cont "gatt-3k-$i" 60 gatt radio-continue-3k
            ((baseline)) && cont "l2cap0-3k-$i" 45 l2cap radio-l2cap-3k "$unnudged"
            cont "l2cap-3k-$i" 45 l2cap radio-l2cap-3k
            ceiling "ceiling-3k-$i" 3072 60
        fi
        if ((i <= r64k)); then
            ((baseline)) && cont "gatt0-64k-$i" 90 gatt radio-continue-64k "$unnudged"
            cont "gatt-64k-$i" 90 gatt radio-continue-64k
            cont "l2cap-64k-$i" 45 l2cap radio-l2cap-64k
            ceiling "ceiling-64k-$i" 65536 60
        fi
        if ((i <= r1m)); then
            ((i <= r1mgatt)) && cont "gatt-1m-$i" 400 gatt radio-continue-1m
            cont "l2cap-1m-$i" 120 l2cap radio-l2cap-1m
            ceiling "ceiling-1m-$i" 1048576 90
        fi
        # The back-to-back pair after the second round (or the last, if fewer), not at the very end where a VM
        # run over its limit would lose it.
        if ((b2b && (i == 2 || (i == rounds && rounds < 2)))); then
            cont "b2b-l2cap-3k-1" 120 l2cap radio-back-to-back
            cont "b2b-gatt-3k-1" 240 gatt radio-back-to-back-gatt
        fi
        if ((coldlinks && i == 1)); then
            cont "coldlinks-l2cap-3k-1" 150 l2cap radio-l2cap-cold-links
        fi
    done
} >"$list"
count=$(grep -vc '^#' "$list")
echo "ble-transport: $count scenario(s) in one VM boot (list $list)"

# Built before the lock is taken (niced: a VM may be running), so the VM is not held while the compiler runs;
# vm-test.sh then skips the build.
(cd "$root" && nice -n 15 ${SWIFT:-swift} build --product handoff-radio-scenarios)

# The host load and the start are taken once the lock is held (right before the boot), not while waiting for it.
marks="$results/ble-transport-$stamp.start"
vm=(bash -c 'date -u +%FT%TZ >"$0"; cut -d" " -f1-3 /proc/loadavg >>"$0"; uptime >>"$0"; exec "$@"' "$marks"
    "$root/scripts/vm-test.sh" --keep-logs --no-build --timeout "$limit" --list "$list")
if [[ "$lock" != held ]]; then
    echo "ble-transport: waiting for the VM lock ($lock)"
    vm=(flock "$lock" "${vm[@]}")
fi
set +e
HANDOFF_VM_RETRIES=0 "${vm[@]}" 2>&1 | tee "$out"
set -e
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(sed -n 1p "$marks" 2>/dev/null) load=$(sed -n 2p "$marks" 2>/dev/null)
load_uptime=$(sed -n 3p "$marks" 2>/dev/null)
run=$(sed -n 's/^vm-test: logs kept in //p' "$out" | tail -n 1)
[[ -n $run && -d $run/scenarios ]] || { echo "ble-transport: no run folder" >&2; exit 1; }
boot=$(grep -E '^vm-test: boot to BlueZ ready' "$out" | tail -n 1 || true)

python3 "$root/bench/ble-transport-summary.py" --scenarios "$run/scenarios" --list "$list" \
    --out "$results/ble-transport-$stamp" --load "$load" --load-after "$load_after" --started "$started" \
    --boot "${boot#vm-test: }" --uptime "at the start: ${load_uptime:-?}; at the end: $(uptime)"
cp "$results/ble-transport-$stamp.txt" "$results/latest-ble-transport.txt"
