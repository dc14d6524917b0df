#!/usr/bin/env bash
# The ceiling of the emulated LE link, for `make bench-ble`: BlueZ's own l2test moves N bytes kernel to kernel over an
# LE credit-based channel, hci1 (client, sending) to hci0 (listener), and this prints the wall time and the PDUs
# btmon saw. Runs INSIDE the VM, as one scenario line of a list given to scripts/vm-test.sh, e.g.
#
#   ceiling  @timeout=180  bench/l2cap-ceiling.sh --sizes 3072,65536,1048576 --runs 2
#
#   bench/l2cap-ceiling.sh [--sizes LIST] [--sdu BYTES] [--runs N] [--psm PSM] [--btsnoop FILE]
#
#   --sizes    comma-separated byte counts (default 3072,65536,1048576)
#   --sdu      SDU size l2test sends (default 4096; a size below it goes as one SDU of that size)
#   --runs     repetitions per size, alternating sizes (default 1)
#   --psm      the LE PSM l2test listens on, decimal (default 245: the kernel hands out dynamic PSMs from 128 up,
#              so a daemon listening in the same boot keeps its own)
#   --btsnoop  the capture to count PDUs in (default: the one btmon writes for this scenario, which
#              scripts/vm/guest-bluez.sh keeps in /run/handoff-vm/btmon.live; "none" skips the count)
#
# Output, one line per run (stable keys, for the bench to parse; times are the VM's, TCG: compare ratios):
#   CEILING size=B sdu=B sdus=N wall_ms=T connect_ms=T transfer_ms=T psm=P from=EPOCH to=EPOCH
#   PDUS size=B <bench/l2cap-pdus.py line for the hci1->hci0 channel: sdus, kframes (min), acl (min), credits>
# wall_ms runs from starting l2test's client to the listener having received the last SDU: connection included,
# as the issue's figures are (the LE link is created by the kernel on the first run and may be reused after).
# connect_ms ends when the listener logs the connection ("Connect from", or its first SDU); transfer_ms =
# wall_ms - connect_ms. from/to are the marks (Unix epoch, the VM clock that btmon stamps records with) given to
# bench/l2cap-pdus.py --from/--to.
# Exit status: 0 when every run moved every byte; 1 otherwise (the failing run's l2test logs are printed); 2 for
# bad usage. For the duration hci0 is made connectable and advertising (btmgmt), and put back as it was.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
sizes=3072,65536,1048576 sdu=4096 runs=1 psm=245 btsnoop=""
usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
    case "$1" in
        --sizes) sizes=${2:-}; shift 2 || usage ;;
        --sdu) sdu=${2:-}; shift 2 || usage ;;
        --runs) runs=${2:-}; shift 2 || usage ;;
        --psm) psm=${2:-}; shift 2 || usage ;;
        --btsnoop) btsnoop=${2:-}; shift 2 || usage ;;
        -h | --help) usage ;;
        *) echo "l2cap-ceiling: unknown argument '$1'" >&2; usage ;;
    esac
done
[[ "$sdu" =~ ^[0-9]+$ ]] && ((sdu >= 23 && sdu <= 65535)) || { echo "l2cap-ceiling: --sdu must be 23..65535" >&2; exit 2; }
[[ "$runs" =~ ^[0-9]+$ ]] && ((runs > 0)) || { echo "l2cap-ceiling: --runs must be positive" >&2; exit 2; }
[[ "$psm" =~ ^[0-9]+$ ]] && ((psm >= 128 && psm <= 255)) \
    || { echo "l2cap-ceiling: --psm must be 128..255" >&2; exit 2; }
IFS=, read -r -a list <<<"$sizes"
for s in "${list[@]}"; do [[ "$s" =~ ^[0-9]+$ ]] && ((s > 0)) || { echo "l2cap-ceiling: bad size '$s'" >&2; exit 2; }; done
# The capture btmon is writing now: guest tmpfs (scripts/vm/guest-bluez.sh moves it to the scenario's
# NAME.btsnoop when the scenario ends), or the scenario's file itself with an older guest-bluez.sh.
if [[ -z "$btsnoop" && -e /run/handoff-vm/btmon.live ]]; then
    btsnoop=/run/handoff-vm/btmon.live
elif [[ -z "$btsnoop" && -n "${HANDOFF_VM_ARTIFACTS:-}" ]]; then
    btsnoop=${HANDOFF_VM_ARTIFACTS%.files}.btsnoop
fi
for tool in l2test btmgmt busctl python3; do
    command -v "$tool" >/dev/null || { echo "l2cap-ceiling: '$tool' is missing (run inside the VM)" >&2; exit 1; }
done

address() {
    busctl --system get-property org.bluez "/org/bluez/$1" org.bluez.Adapter1 Address | cut -d'"' -f2
}
server=$(address hci0)
[[ "$server" =~ ^([0-9A-F]{2}:){5}[0-9A-F]{2}$ ]] || { echo "l2cap-ceiling: no address for hci0 (got '$server')" >&2; exit 1; }
type=$(busctl --system get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 AddressType | cut -d'"' -f2)
[[ "$type" == public || "$type" == random ]] || { echo "l2cap-ceiling: hci0 AddressType '$type'" >&2; exit 1; }
kind=le_$type

work=$(mktemp -d /tmp/l2cap-ceiling.XXXXXX)
pids=() before=""
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    # Back to what hci0 had (bluetoothd's own state for the next scenario), not to off.
    [[ " $before " == *" advertising "* ]] || btmgmt -i hci0 advertising off >/dev/null 2>&1
    [[ " $before " == *" connectable "* ]] || btmgmt -i hci0 connectable off >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
before=$(btmgmt -i hci0 info 2>/dev/null | sed -n 's/.*current settings: //p' | head -n1)
# The kernel creates the LE link for l2test's connect by scanning for hci0: hci0 must advertise connectably.
btmgmt -i hci0 connectable on >/dev/null && btmgmt -i hci0 advertising on >/dev/null \
    || { echo "l2cap-ceiling: btmgmt could not make hci0 connectable and advertising" >&2; exit 1; }

ms() { python3 -c "import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$1" "$2"; }

# wait_for FILE PATTERN COUNT SECONDS: until FILE has COUNT lines matching PATTERN; 1 on timeout.
wait_for() {
    local file=$1 pattern=$2 want=$3 limit=$4 start
    start=$(date +%s)
    while (($(grep -c -E -- "$pattern" "$file" 2>/dev/null || true) < want)); do
        (($(date +%s) - start < limit)) || return 1
        sleep 0.01
    done
}

failed=0
for ((round = 1; round <= runs; round++)); do
    for size in "${list[@]}"; do
        b=$((size < sdu ? size : sdu))
        n=$(((size + b - 1) / b))
        log=$work/server-$size-$round.log client=$work/client-$size-$round.log
        l2test -r -V "$kind" -P "$psm" -i hci0 -I 65535 -b "$b" >"$log" 2>&1 &
        srv=$!
        pids+=("$srv")
        if ! wait_for "$log" "Waiting for connection on psm" 1 10; then
            echo "l2cap-ceiling: l2test -r did not start:" >&2; cat "$log" >&2; failed=1; continue
        fi
        # One python3 process starts l2test's client and watches the listener's log every 5 ms (no fork per
        # poll: a grep every 10 ms took a good share of a TCG vCPU from the transfer it was timing), printing
        # "t0 tc t1" (Unix epoch): client started, listener connected (or its first SDU), last SDU in.
        marks=$(python3 - "$log" "$n" "$client" "$kind" "$psm" "$b" "$server" <<'WATCH'
import re, subprocess, sys, time
log, n, client, kind, psm, size, server = sys.argv[1:8]
n = int(n)
with open(client, "w") as out:
    t0 = time.time()
    # -g: linger before disconnecting, so the kernel sends every queued SDU before the channel closes.
    child = subprocess.Popen(["l2test", "-s", "-V", kind, "-P", psm, "-i", "hci1", "-b", size, "-N", str(n),
                              "-g", "5000", server], stdout=out, stderr=subprocess.STDOUT)
print(child.pid, flush=True)
tc = t1 = None
deadline = t0 + 120
while time.time() < deadline:
    text = open(log, errors="replace").read()
    got = text.count("bytes in")
    if tc is None and (got or "Connect from" in text):
        tc = time.time()
    if got >= n:
        t1 = time.time()
        break
    if tc is None and time.time() > t0 + 20:
        break
    time.sleep(0.005)
print(f"{t0:.6f} {tc or 0:.6f} {t1 or 0:.6f}")
WATCH
        )
        cli=$(head -n1 <<<"$marks")
        [[ "$cli" =~ ^[0-9]+$ ]] && pids+=("$cli")
        read -r t0 tc t1 <<<"$(tail -n1 <<<"$marks")"
        if [[ -n "${t1:-}" && "$t1" != 0.000000 ]]; then
            echo "CEILING size=$size sdu=$b sdus=$n wall_ms=$(ms "$t0" "$t1") connect_ms=$(ms "$t0" "$tc")" \
                "transfer_ms=$(ms "$tc" "$t1") psm=$psm from=$t0 to=$t1"
            if [[ -n "$btsnoop" && "$btsnoop" != none ]]; then
                sleep 0.5 # btmon writes the last records
                pdus=$(python3 "$here/bench/l2cap-pdus.py" "$btsnoop" --from "$t0" --to "$t1" --psm "$psm" \
                    | grep -- "hci1->hci0" | head -n1)
                echo "PDUS size=$size ${pdus:-no LE CoC data found in $btsnoop}"
            fi
        else
            echo "l2cap-ceiling: $size bytes did not arrive ($(grep -c 'bytes in' "$log") of $n SDUs)" >&2
            echo "--- l2test -r:" >&2; tail -n 5 "$log" >&2
            echo "--- l2test -s:" >&2; tail -n 5 "$client" >&2
            failed=1
        fi
        kill "${cli:-}" "$srv" 2>/dev/null
        wait "$srv" 2>/dev/null
    done
done
exit "$failed"
