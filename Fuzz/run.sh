#!/usr/bin/env bash
# The libFuzzer targets (Fuzz/README.md): one per decoder of outside input, built with
# -sanitize=fuzzer,address, run with LeakSanitizer on. Any crash, trap, sanitizer report or leak fails the run.
#
#   Fuzz/run.sh build                 build every target (.build/fuzz, release with coverage and ASan)
#   Fuzz/run.sh seeds                 rewrite the committed seed corpora (Fuzz/Corpus/NAME) from the real encoders
#   Fuzz/run.sh run [NAME...]         fuzz each target (all when none is named), one after the other
#
# Knobs (environment): FUZZ_RUNS (runs per target; 0: no limit), FUZZ_SECONDS (time per target; 0: no limit),
# FUZZ_TIMEOUT (seconds one input may take, default 10; raise it for a run niced beside VMs),
# FUZZ_JOBS (parallel fuzzing processes per target, 1), FUZZ_MAX_LEN (largest input, 4096), FUZZ_TMPDIR (where
# the file-writing targets work; default /dev/shm when writable).
# `make test-fuzz` is `FUZZ_SECONDS=5 run`; `make fuzz` is `FUZZ_RUNS=10000000 run`.
# The growing corpora live in .build/fuzz/corpus/NAME, crash inputs in .build/fuzz/artifacts/NAME, logs in
# .build/fuzz/logs; a summary (runs, runs/s, peak RSS, outcome per target) ends the output and goes to
# .build/fuzz/summary.tsv.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
targets=(beacon frame sealed-stream plist plist-amplification dbus-arguments note-file state-json pairing)
scratch="$root/.build/fuzz"
# The note-file and state-json targets write files (and fsync them) for one input in 64: on a tmpfs that costs
# little, on a disk it would dominate.
[[ -n ${FUZZ_TMPDIR:-} || ! -w /dev/shm ]] || export TMPDIR=/dev/shm
[[ -z ${FUZZ_TMPDIR:-} ]] || export TMPDIR=$FUZZ_TMPDIR
bin="$scratch/release"
say() { printf 'fuzz: %s\n' "$*" >&2; }

build() {
    local t
    for t in "$@"; do
        say "building fuzz-$t"
        mkdir -p "$scratch"
        if ! (cd "$root" && HANDOFF_FUZZ=1 swift build -c release --scratch-path "$scratch" \
            --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing \
            --product "fuzz-$t") >"$scratch/build.log" 2>&1; then
            grep -v "__asan_extra_spill_area" "$scratch/build.log" >&2 || true
            say "cannot build fuzz-$t"
            exit 1
        fi
        [[ -x $bin/fuzz-$t ]] || { say "no $bin/fuzz-$t after the build"; exit 1; }
    done
}

seeds() {
    local t
    for t in "$@"; do
        rm -rf "$root/Fuzz/Corpus/$t"
        HANDOFF_FUZZ_WRITE_SEEDS="$root/Fuzz/Corpus/$t" "$bin/fuzz-$t" >/dev/null 2>&1
        say "$t: $(ls "$root/Fuzz/Corpus/$t" | wc -l) seeds"
    done
}

run() {
    local runs=${FUZZ_RUNS:-0} seconds=${FUZZ_SECONDS:-0} jobs=${FUZZ_JOBS:-1} max_len=${FUZZ_MAX_LEN:-4096}
    local timeout=${FUZZ_TIMEOUT:-10}
    local t failed=0 summary="$scratch/summary.tsv"
    mkdir -p "$scratch/logs"
    printf 'target\truns\truns_per_s\tpeak_rss_mb\tnew_units\toutcome\n' >"$summary"
    for t in "$@"; do
        local corpus="$scratch/corpus/$t" artifacts="$scratch/artifacts/$t/" log="$scratch/logs/$t.log"
        mkdir -p "$corpus" "$artifacts"
        [[ -d $root/Fuzz/Corpus/$t ]] || { say "no seed corpus Fuzz/Corpus/$t"; exit 1; }
        # plist-amplification builds megabytes from each input: its limits are the point (the decoder's 32 MiB
        # budget, with ASan's overhead), so a copy per shared reference ends the run as out-of-memory.
        local rss=2560 malloc=0
        [[ $t != plist-amplification ]] || { rss=1024; malloc=160; }
        local args=(-max_len="$max_len" -timeout="$timeout" -rss_limit_mb="$rss" -malloc_limit_mb="$malloc" -detect_leaks=1 -print_final_stats=1
            -artifact_prefix="$artifacts" -runs="$((runs > 0 ? runs : -1))")
        ((seconds > 0)) && args+=(-max_total_time="$seconds")
        ((jobs > 1)) && args+=(-fork="$jobs" -ignore_crashes=0)
        say "$t: fuzzing (runs ${runs/#0/unlimited}, seconds ${seconds/#0/unlimited})"
        local status=0
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 SWIFT_BACKTRACE=enable=no \
            "$bin/fuzz-$t" "${args[@]}" "$corpus" "$root/Fuzz/Corpus/$t" >"$log" 2>&1 || status=$?
        local executed rate rss units outcome=ok
        executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
        units=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
        if grep -q 'ERROR: LeakSanitizer' "$log"; then outcome=LEAK
        elif ((status != 0)); then outcome="CRASH($status)"
        fi
        [[ $outcome == ok ]] || { failed=1; say "$t: $outcome, see $log and $artifacts"; grep -m5 -A12 'ERROR:\|Fatal error\|==ERROR' "$log" >&2 || true; }
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${executed:-?}" "${rate:-?}" "${rss:-?}" "${units:-?}" "$outcome" \
            | tee -a "$summary"
    done
    return "$failed"
}

command=${1:-run}
shift || true
(($#)) || set -- "${targets[@]}"
case "$command" in
    build) build "$@" ;;
    seeds) build "$@"; seeds "$@" ;;
    run) build "$@"; run "$@" ;;
    *) say "unknown command '$command' (build, seeds or run)"; exit 2 ;;
esac
