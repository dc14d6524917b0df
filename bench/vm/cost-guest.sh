#!/usr/bin/env bash
# Inside the VM (bench/crowded-room.sh boots it with 16 btvirt controllers and bluetoothd -E): what handoffd costs
# in a crowded room and at rest. Writes one line per measurement to OUT/cost.tsv (key=value fields) and each
# daemon's log to OUT/.
#
#   cost-guest.sh OUT
#
# Environment: BENCH_SECONDS (60) per crowded-room window, BENCH_COUNTS ("0 10 40") foreign advertisers,
# BENCH_IDLE_SECONDS (60) per at-rest window, BENCH_PERIOD (5) seconds between data changes of one advertiser.
#
# Crowded room: for each N, crowd.py puts N foreign advertisers on hci2..hci15 (phone-like manufacturer data,
# changing), hci0 advertises one handoff-shaped beacon (company 0xFFFF, version 1, 24 bytes: a stranger's, which
# our daemon hears and cannot decode), and handoffd on hci1 runs once with today's discovery (HANDOFF_SCANNING=
# discovery, restarted every 5 s as in production before the monitor) and once with the advertisement monitor, in
# alternating order. Over each window: handoffd's CPU time (utime+stime), the messages its BlueZ connection was
# handed (its own counters, logged on SIGUSR1 at both ends of the window), bluetoothd's CPU time, and handoffd's
# context switches.
#
# At rest: no foreign advertiser; handoffd idle with the monitor, then with one current activity (a note made
# current with `handoff note edit`), then idle with the fallback discovery as production now runs it (no restarts). Per window: CPU time, voluntary and
# involuntary context switches per thread (each voluntary switch is a sleep that ended: a wakeup), scheduler
# run count (/proc/PID/schedstat), RSS (VmRSS, VmHWM).
set -uo pipefail
out=${1:?usage: cost-guest.sh OUT}
mkdir -p "$out"
repo=${HANDOFF_REPO:?run inside the VM}
bin=${HANDOFF_BIN_DIR:-$repo/.build/debug}
seconds=${BENCH_SECONDS:-60}
counts=${BENCH_COUNTS-0 10 40}           # BENCH_COUNTS= (empty): at rest only
idle=${BENCH_IDLE_SECONDS:-60}
period=${BENCH_PERIOD:-5}
tsv=$out/cost.tsv
work=$(mktemp -d /tmp/cost.XXXXXX)
tick=$(getconf CLK_TCK)
say() { printf 'cost: [%s] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*" >&2; }
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
}
trap cleanup EXIT

bluetoothd_pid=$(cat /run/handoff-vm/bluetoothd.pid)
# utime + stime of a process, all threads, in ms.
cpu_ms() { awk -v t="$tick" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$1/stat"; }
# voluntary and involuntary context switches summed over threads; and the scheduler's run count.
switches() {
    local v=0 n=0 r=0 task a b c
    for task in /proc/"$1"/task/*; do
        a=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$task/status" 2>/dev/null || echo 0)
        b=$(awk '/^nonvoluntary_ctxt_switches/ { print $2 }' "$task/status" 2>/dev/null || echo 0)
        c=$(awk '{ print $3 }' "$task/schedstat" 2>/dev/null || echo 0)
        v=$((v + ${a:-0})) n=$((n + ${b:-0})) r=$((r + ${c:-0}))
    done
    echo "$v $n $r"
}
# per thread: "tid:comm:voluntary" (comm without spaces)
per_thread() {
    local task
    for task in /proc/"$1"/task/*; do
        printf '%s:%s:%s ' "${task##*/}" "$(tr ' ' _ <"$task/comm")" \
            "$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$task/status" 2>/dev/null)"
    done
}
rss() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { print r, h }' "/proc/$1/status"; }
# the last "bus statistics" line's BlueZ numbers: total signals calls replies
statistics() {
    grep 'bus statistics' "$1" | tail -n1 \
        | sed -E 's/.*BlueZ connection ([0-9]+) messages \(([0-9]+) signals, ([0-9]+) method calls, ([0-9]+) replies\).*/\1 \2 \3 \4/'
}

# Our peer's beacon on hci0, through bluetoothctl (LEAdvertisingManager1), fed by a fifo.
mkfifo "$work/adv.in"
bluetoothctl <"$work/adv.in" >"$out/hci0-advert.log" 2>&1 &
pids+=($!)
exec {adv}>"$work/adv.in"
for line in "select 00:AA:01:00:00:00" "menu advertise" \
    "manufacturer 0xffff 0x01 0x10 0x11 0x12 0x13 0x14 0x15 0x16 0x17 0x18 0x19 0x1a 0x1b 0x1c 0x1d 0x1e 0x1f 0x20 0x21 0x22 0x23 0x24 0x25 0x26" \
    "discoverable off" "back" "advertise peripheral"; do
    echo "$line" >&"$adv"
    sleep 0.3
done
sleep 2

api=$("$repo/scripts/api-bus.sh" "$work/api")
bus=$(sed -n 1p <<<"$api")
pids+=("$(sed -n 2p <<<"$api")")
mkdir -p "$work/home" "$work/state"
handoff() { HANDOFF_BUS_ADDRESS=$bus XDG_DATA_HOME=$work/home HOME=$work/home "$bin/handoff" "$@"; }

daemon=""
# start_daemon METHOD LOG [REFRESH]: handoffd on hci1 with the given scanning method and discovery restarts every
# REFRESH s (0: never, as production now does); waits until it serves and scans.
start_daemon() {
    local method=$1 log=$2 refresh=${3:-0} i
    HANDOFF_SCANNING=$method HANDOFF_DISCOVERY_REFRESH=$refresh "$bin/handoffd" --adapter hci1 --name desktop \
        --bus "$bus" --state-dir "$work/state" >"$log" 2>&1 &
    daemon=$!
    for ((i = 0; i < 600; i++)); do
        grep -q 'scanning with' "$log" && handoff status >/dev/null 2>&1 && return 0
        kill -0 "$daemon" 2>/dev/null || { say "handoffd died:"; cat "$log" >&2; return 1; }
        sleep 0.1
    done
    say "handoffd did not start scanning in 60 s"; cat "$log" >&2
    return 1
}
stop_daemon() {
    kill -TERM "$daemon" 2>/dev/null
    wait "$daemon" 2>/dev/null
    daemon=""
}

# window KIND N METHOD SECONDS LOG: measures one window of the running daemon and appends a line to cost.tsv.
window() {
    local kind=$1 n=$2 method=$3 length=$4 log=$5
    local c0 b0 s0 m0 c1 b1 s1 m1 r t0 t1
    sleep 5                                              # let start-up and the first reports settle
    kill -USR1 "$daemon"
    sleep 0.5
    m0=$(statistics "$log")
    c0=$(cpu_ms "$daemon") b0=$(cpu_ms "$bluetoothd_pid") s0=$(switches "$daemon") t0=$(per_thread "$daemon")
    sleep "$length"
    c1=$(cpu_ms "$daemon") b1=$(cpu_ms "$bluetoothd_pid") s1=$(switches "$daemon") t1=$(per_thread "$daemon")
    kill -USR1 "$daemon"
    sleep 0.5
    m1=$(statistics "$log")
    r=$(rss "$daemon")
    read -r mt0 ms0 mc0 mr0 <<<"$m0"
    read -r mt1 ms1 mc1 mr1 <<<"$m1"
    read -r v0 n0 q0 <<<"$s0"
    read -r v1 n1 q1 <<<"$s1"
    read -r rss_kb hwm_kb <<<"$r"
    local line="kind=$kind n=$n method=$method seconds=$length handoffd_cpu_ms=$((c1 - c0))"
    line+=" bluetoothd_cpu_ms=$((b1 - b0)) messages=$((mt1 - mt0)) signals=$((ms1 - ms0)) calls=$((mc1 - mc0))"
    line+=" replies=$((mr1 - mr0)) voluntary=$((v1 - v0)) involuntary=$((n1 - n0)) runs=$((q1 - q0))"
    line+=" rss_kb=$rss_kb hwm_kb=$hwm_kb threads=$(ls /proc/$daemon/task | wc -l)"
    echo "$line" | tee -a "$tsv" >&2
    # Per-thread voluntary switches over the window, for the threads that woke at all.
    python3 - "$t0" "$t1" <<'EOF' | sed "s/^/kind=threads of=$kind n=$n method=$method /" | tee -a "$tsv" >&2
import sys
before = {f.split(":")[0]: (f.split(":")[1], int(f.split(":")[2] or 0)) for f in sys.argv[1].split()}
after = {f.split(":")[0]: (f.split(":")[1], int(f.split(":")[2] or 0)) for f in sys.argv[2].split()}
woke = {tid: (name, count - before.get(tid, (name, 0))[1]) for tid, (name, count) in after.items()}
print(" ".join(f"{name}/{tid}={delta}" for tid, (name, delta) in sorted(woke.items()) if delta))
EOF
}

say "crowded room: N in $counts, ${seconds}s windows"
index=0
for n in $counts; do
    crowd=""
    if ((n > 0)); then
        /usr/bin/python3 "$repo/bench/vm/crowd.py" "$n" "$period" $(seq 2 15) >>"$out/crowd.log" 2>&1 &
        crowd=$!
        sleep 5
    fi
    if ((index % 2 == 0)); then methods="discovery monitor"; else methods="monitor discovery"; fi
    for method in $methods; do
        log=$out/handoffd-crowd-$n-$method.log
        refresh=0
        [[ $method == discovery ]] && refresh=5           # today's discovery: restarted every 5 s
        start_daemon "$method" "$log" "$refresh" || exit 1
        window crowd "$n" "$method" "$seconds" "$log"
        stop_daemon
        sleep 2
    done
    if [[ -n $crowd ]]; then kill -TERM "$crowd"; wait "$crowd" 2>/dev/null; fi
    index=$((index + 1))
done

say "at rest: ${idle}s windows"
for method in monitor discovery; do
    log=$out/handoffd-rest-$method.log
    start_daemon "$method" "$log" || exit 1
    window rest-idle 0 "$method" "$idle" "$log"
    if [[ $method == monitor ]]; then
        printf '# At rest\nnothing happens here\n' | handoff note edit rest --stdin --grace 600 >"$out/note.log" 2>&1 \
            || { say "note edit failed"; cat "$out/note.log" >&2; }
        handoff status >>"$out/note.log" 2>&1
        window rest-current 0 "$method" "$idle" "$log"
    fi
    stop_daemon
done
say "done"
