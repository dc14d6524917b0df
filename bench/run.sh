#!/usr/bin/env bash
# The D-Bus benchmark (`make bench`): round-trip calls/s and 1 MiB array throughput of our Swift layer against
# a C libdbus client (the ceiling), dbus-python and dbus-fast, all calling ONE C service on a private
# dbus-daemon this script starts. See bench/README.md for what is measured and how to read it.
#
# Knobs (environment): BENCH_SECONDS (measured time per test, 1), BENCH_WARMUP (0.25), BENCH_REPS (5),
# BENCH_SIZE (bytes per Sink/Source call, 1048576), BENCH_TESTS (ping,echo,sink,source),
# BENCH_CLIENTS (c,dbus-python,dbus-fast,dbus-fast-proxy,swift,swift-executor; also swift-baseline: the dbus-bench
# binary at BENCH_BASELINE_BIN, e.g. built from an older commit, to compare in the same run),
# BENCH_PIN (a CPU list for taskset: the bus, the service and every client share those CPUs; default: the last
# CPU, which takes cross-core wake-up noise out of the ratios; BENCH_PIN=none: no pinning, the scheduler decides),
# BENCH_NICE (a nice value for every process, e.g. -10 as root on a machine busy with builds; unset: unchanged).
# Every process it starts is stopped on exit, also on failure or Ctrl-C.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in bench/python

root=$(cd "$(dirname "$0")/.." && pwd)
bench="$root/bench"
seconds=${BENCH_SECONDS:-1}
warmup=${BENCH_WARMUP:-0.25}
reps=${BENCH_REPS:-5}
size=${BENCH_SIZE:-1048576}
tests=${BENCH_TESTS:-ping,echo,sink,source}
test_count=$(tr ',' '\n' <<<"$tests" | grep -c .)
IFS=, read -r -a clients <<<"${BENCH_CLIENTS:-c,dbus-python,dbus-fast,dbus-fast-proxy,swift,swift-executor}"
python_system=/usr/bin/python3
python_venv="$root/.venv/bin/python"
bin="$root/.build/bench"
pinned=${BENCH_PIN:-$(($(nproc) - 1))}
pin=""
[[ $pinned == none ]] || pin="taskset -c $pinned"
[[ -z ${BENCH_NICE:-} ]] || pin="nice -n $BENCH_NICE $pin"

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/handoff-bench.XXXXXX")
started=()
cleanup() {
    local status=$?
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${started[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# Waits up to $2 seconds for file $1 to contain a line matching $3, while process $4 lives.
wait_for_line() {
    local file=$1 limit=$2 pattern=$3 pid=$4 i
    for ((i = 0; i < limit * 20; i++)); do
        grep -q "$pattern" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# --- build -------------------------------------------------------------------------------------------------
[[ -x $python_venv ]] || die "no $python_venv: run scripts/deps.sh bench first"
mkdir -p "$bin"
flags=(-O2 -Wall -Wextra -Werror $(pkg-config --cflags dbus-1))
libs=$(pkg-config --libs dbus-1)
for program in service client; do
    gcc "${flags[@]}" -o "$bin/$program" "$bench/c/$program.c" $libs || die "cannot compile bench/c/$program.c"
done

: >"$work/not-measured"
swift_bin=""
want_swift=0
for c in "${clients[@]}"; do [[ $c == swift* ]] && want_swift=1; done
if ((want_swift)); then
    if ! grep -q '"dbus-bench"' "$root/Package.swift"; then
        printf 'swift\tno dbus-bench target in Package.swift (the D-Bus layer is not merged here yet)\n' \
            >>"$work/not-measured"
    else
        say "building dbus-bench (swift build -c release --product dbus-bench)"
        if (cd "$root" && swift build -c release --product dbus-bench) >"$work/swift-build.log" 2>&1; then
            swift_bin="$(cd "$root" && swift build -c release --show-bin-path)/dbus-bench"
        else
            tail -n 30 "$work/swift-build.log" >&2
            printf 'swift\tswift build -c release --product dbus-bench FAILED\n' >>"$work/not-measured"
        fi
    fi
fi

client_command() {
    case $1 in
        c) echo "$bin/client" ;;
        dbus-python) echo "$python_system $bench/python/dbus_python_client.py" ;;
        dbus-fast) echo "env STYLE=message $python_venv $bench/python/dbus_fast_client.py" ;;
        dbus-fast-proxy) echo "env STYLE=proxy $python_venv $bench/python/dbus_fast_client.py" ;;
        swift) echo "$swift_bin" ;;
        swift-executor) echo "env EXECUTOR=connection $swift_bin" ;;
        swift-baseline) echo "${BENCH_BASELINE_BIN:?swift-baseline needs BENCH_BASELINE_BIN}" ;;
        *) die "unknown client '$1' (c, dbus-python, dbus-fast, dbus-fast-proxy, swift, swift-executor)" ;;
    esac
}
measured=()
for c in "${clients[@]}"; do
    if [[ $c == swift* && -z $swift_bin ]]; then continue; fi
    client_command "$c" >/dev/null
    measured+=("$c")
done
printf '%s\n' "${measured[@]}" >"$work/clients"

# --- the bus and the service -------------------------------------------------------------------------------
cat >"$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$work</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
$pin dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=1 >"$work/address" 2>"$work/daemon.log" &
started+=($!)
wait_for_line "$work/address" 5 '^unix:' "${started[-1]}" || { cat "$work/daemon.log" >&2; die "dbus-daemon did not start"; }
address=$(head -n 1 "$work/address")

$pin "$bin/service" "$address" >"$work/service.out" 2>"$work/service.log" &
service_pid=$!
started+=("$service_pid")
wait_for_line "$work/service.out" 5 '^ready' "$service_pid" || { cat "$work/service.log" >&2; die "service did not start"; }

# Runs client $1 once into $2 (for $3 seconds a test, default $seconds); returns the client's status.
# The client runs as a child we can stop from the trap.
run_client() {
    local name=$1 out=$2 duration=${3:-$seconds} pid status=0 limit
    # A client that hangs is stopped: a minute on top of the time its tests should take.
    limit=$(awk -v d="$duration" -v w="$warmup" -v n="$test_count" 'BEGIN { printf "%d", (d + w) * n + 60 }')
    # shellcheck disable=SC2046  # the command is a word list on purpose
    timeout --kill-after=5 "$limit" $pin $(client_command "$name") "$address" "$duration" "$warmup" "$size" "$tests" \
        >"$out" 2>"$work/$name.err" &
    pid=$!
    started+=("$pid")
    wait "$pid" || status=$?
    kill -0 "$service_pid" 2>/dev/null || die "the service died while $name ran: $(cat "$work/service.log")"
    return "$status"
}

# --- measure -----------------------------------------------------------------------------------------------
stamp=$(date -u +%Y%m%dT%H%M%SZ)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
say "bus at $address; load average $load_start; ${#measured[@]} clients x $reps repetitions"
say "warm-up: one unmeasured C client run"
run_client c "$work/warmup.out" 0.3 || die "the warm-up C client failed: $(cat "$work/c.err")"

failed=()
for ((rep = 0; rep < reps; rep++)); do
    n=${#measured[@]}
    for ((k = 0; k < n; k++)); do
        name=${measured[(rep + k) % n]}   # rotate the order, so no client always runs first or last
        [[ " ${failed[*]} " == *" $name "* ]] && continue
        say "repetition $((rep + 1))/$reps: $name"
        if ! run_client "$name" "$work/$name.$rep.jsonl"; then
            say "!!! $name FAILED: $(tail -n 5 "$work/$name.err")"
            failed+=("$name")
            rm -f "$work/$name".*.jsonl
            printf '%s\tthe client failed: %s\n' "$name" "$(tail -n 1 "$work/$name.err")" >>"$work/not-measured"
        fi
    done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ------------------------------------------------------------------------------------------------
version_of() { "$@" 2>/dev/null | head -n 1 || echo unknown; }
{
    echo "stamp=$stamp"
    echo "timestamp=$(date -u -d "${stamp:0:8} ${stamp:9:2}:${stamp:11:2}:${stamp:13:2}" +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
        git -C "$root" diff --quiet HEAD 2>/dev/null || echo '+changes')"
    echo "cores=$(nproc)"
    echo "cpu_model=$(grep -m 1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "kernel=$(uname -r)"
    echo "load_start=$load_start"
    echo "load_end=$load_end"
    echo "seconds=$seconds"
    echo "warmup=$warmup"
    echo "reps=$reps"
    echo "size=$size"
    echo "tests=$tests"
    echo "pinned=$([[ $pinned == none ]] && echo 'none' || echo "every process on CPU $pinned")$(
        [[ -z ${BENCH_NICE:-} ]] || echo ", nice $BENCH_NICE")"
    echo "daemon_version=$(version_of dbus-daemon --version)"
    echo "libdbus_version=$(pkg-config --modversion dbus-1)"
    echo "python=$(version_of $python_system --version)"
    echo "dbus_python=$(version_of $python_system -c 'import dbus; print(dbus.__version__)')"
    echo "dbus_fast=$(version_of "$python_venv" -c 'import importlib.metadata as m; print(m.version("dbus-fast"))')"
    echo "gcc=$(version_of gcc --version)"
    echo "swift=$(version_of swift --version)"
} >"$work/meta.env"
"$python_system" "$bench/summarize.py" "$work" "$bench/results"
# The payload codec against plistlib in the same run (issue 12 §5): bench/results/codec.json.
BENCH_PIN=$pinned BENCH_SECONDS=$seconds BENCH_REPS=$reps "$bench/codec/run.sh" || failed+=(codec)
# What wakes an idle Swift process: the default executor against one of our own (issue 12 §3):
# bench/results/idle-wakeups.json.
"$bench/idle/run.sh" || failed+=(idle)
if ((${#failed[@]})); then
    die "!!! clients failed: ${failed[*]}"
fi
if [[ -s "$work/not-measured" ]] && grep -q 'FAILED' "$work/not-measured"; then
    die "!!! the Swift client could not be built"
fi
