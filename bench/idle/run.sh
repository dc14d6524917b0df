#!/usr/bin/env bash
# What wakes an idle Swift process on Linux (issue 12 §3): Swift concurrency on its default executor (Dispatch's
# global queues, as handoffd runs today) against a single-thread executor of our own installed with Swift 6.3's
# experimental `_createExecutors(factory:)` (loop-executor.swift). Both programs run a few tasks, then sleep in
# `Task.sleep`; over BENCH_IDLE_SECONDS (10) of that sleep, the voluntary context switches of every thread
# (/proc/PID/task/*/status: each is a wakeup from a blocking wait) are counted, in the same run. And the memory
# half: the resident size (VmRSS) of a few lines with all of Foundation against FoundationEssentials only
# (foundation-rss.swift), since most of handoffd's RSS is Foundation's shared pages (Docs/performance.md).
#
#   bench/idle/run.sh          prints a table and the ratio; writes bench/results/idle-wakeups.json
# A benchmark, not a test: it fails only when a program cannot be built or run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/.build/bench/idle
results=$root/bench/results
seconds=${BENCH_IDLE_SECONDS:-10}
mkdir -p "$out" "$results"

for program in default-executor loop-executor; do
    swiftc -O -parse-as-library "$here/$program.swift" -o "$out/$program" 2>"$out/$program.build.log" \
        || { cat "$out/$program.build.log" >&2; echo "idle: cannot build $program" >&2; exit 1; }
done

swiftc -O "$here/foundation-rss.swift" -o "$out/foundation-rss" 2>"$out/foundation-rss.build.log" \
    && swiftc -O -D ESSENTIALS "$here/foundation-rss.swift" -o "$out/essentials-rss" 2>>"$out/foundation-rss.build.log" \
    || { cat "$out/foundation-rss.build.log" >&2; echo "idle: cannot build foundation-rss" >&2; exit 1; }

# launch PROGRAM MARKER [ARGS...]: starts the program and waits (10 s at most) until its output has a line starting
# with MARKER; sets pid (the caller's local).
launch() {
    local program=$1 marker=$2 waited=0
    shift 2
    "$out/$program" "$@" >"$out/$program.out" &
    pid=$!
    until grep -q "^$marker" "$out/$program.out" 2>/dev/null; do
        sleep 0.05
        waited=$((waited + 1))
        ((waited < 200)) || { kill "$pid"; echo "idle: $program never printed '$marker'" >&2; exit 1; }
    done
}

# rss PROGRAM: VmRSS in kB once the program printed "ready", and how many of its mappings are ICU's.
rss() {
    local program=$1 pid kb icu
    launch "$program" ready
    kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
    icu=$(grep -c -i 'icu' "/proc/$pid/maps" || true)
    wait "$pid"
    echo "$kb $icu"
}

# measure PROGRAM: prints "THREADS SWITCHES PER-THREAD" for one idle window of the program.
measure() {
    local program=$1 pid thread before after
    launch "$program" idle $((seconds + 3))
    sleep 0.5
    declare -A start
    for thread in /proc/"$pid"/task/*; do
        start[${thread##*/}]=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$thread/status")
    done
    sleep "$seconds"
    local total=0 threads=0 each=()
    for thread in /proc/"$pid"/task/*; do
        after=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$thread/status")
        before=${start[${thread##*/}]:-0}
        total=$((total + after - before)) threads=$((threads + 1))
        each+=("$(tr -d '\n' <"$thread/comm"):$((after - before))")
    done
    wait "$pid"
    echo "$threads $total ${each[*]}"
}

read -r default_threads default_switches default_each <<<"$(measure default-executor)"
read -r loop_threads loop_switches loop_each <<<"$(measure loop-executor)"
printf '%-18s %8s %22s   %s\n' executor threads "wakeups in ${seconds} s" "per thread (name:wakeups)"
printf '%-18s %8s %22s   %s\n' default "$default_threads" "$default_switches" "$default_each"
printf '%-18s %8s %22s   %s\n' loop "$loop_threads" "$loop_switches" "$loop_each"
echo "loop executor: $loop_switches wakeups against the default's $default_switches in the same ${seconds} s"
read -r foundation_kb foundation_icu <<<"$(rss foundation-rss)"
read -r essentials_kb essentials_icu <<<"$(rss essentials-rss)"
echo "resident: Foundation ${foundation_kb} kB (${foundation_icu} ICU mappings), FoundationEssentials ${essentials_kb} kB (${essentials_icu})"
cat >"$results/idle-wakeups.json" <<JSON
{"date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "commit": "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)",
 "seconds": $seconds, "load": "$(cut -d' ' -f1-3 /proc/loadavg)", "swift": "$(swiftc --version 2>&1 | head -n1)",
 "default": {"threads": $default_threads, "wakeups": $default_switches, "per_thread": "$default_each"},
 "loop": {"threads": $loop_threads, "wakeups": $loop_switches, "per_thread": "$loop_each"},
 "rss_kb": {"foundation": $foundation_kb, "foundation_essentials": $essentials_kb},
 "icu_mappings": {"foundation": $foundation_icu, "foundation_essentials": $essentials_icu}}
JSON
echo "idle: results in bench/results/idle-wakeups.json"
