#!/usr/bin/env bash
# Tier 2 runner (`make test-vm`): every scenario of scripts/vm/scenarios.list, in ONE VM boot with real BlueZ.
#
#   scripts/vm-test.sh [options] [NAME...]      NAMEs select scenarios (default: all, in list order)
#
# Prints exactly one "PASS NAME" or "FAIL NAME (reason)" line per selected scenario, then one line
# "N passed, N failed" (the last line). Exits 1 if any scenario failed or did not run, 2 on bad usage.
# The run folder (.vm/runs/<timestamp>-test) is removed when everything passed and kept otherwise (path printed):
# console.log, results, timings, bluetoothd.log, dbus.log, hci.btsnoop (bring-up), and per scenario
# scenarios/NAME.log and scenarios/NAME.btsnoop (`btmon -r` reads it).
#
# Options:
#   --list FILE     scenario list (default scripts/vm/scenarios.list; format documented there)
#   --timeout S     hard limit for the whole VM (default 180 + the scenarios' own timeouts)
#   --keep-logs     keep the run folder even when everything passed
#   --verbose       stream the VM console while it runs
#   --debug         bluetoothd -d (verbose bluetoothd.log)
#   --no-build      do not run `swift build` for @build= products (they must already be built)
#
# Adding a Swift scenario executable: one line in scripts/vm/scenarios.list, e.g.
#   gatt-3k-mtu517  @build=BlueZScenarios  .build/debug/BlueZScenarios gatt-transfer --size 3072
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
list=$here/scripts/vm/scenarios.list
limit="" keep=0 verbose=0 debug=0 build=1
selected=()

usage() { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while (($#)); do
    case "$1" in
        --list) list=${2:-}; shift 2 || usage ;;
        --timeout) limit=${2:-}; shift 2 || usage ;;
        --keep-logs) keep=1; shift ;;
        --verbose) verbose=1; shift ;;
        --debug) debug=1; shift ;;
        --no-build) build=0; shift ;;
        -h | --help) usage ;;
        -*) echo "vm-test: unknown option '$1'" >&2; usage ;;
        *) selected+=("$1"); shift ;;
    esac
done
[[ -r "$list" ]] || { echo "vm-test: cannot read scenario list '$list'" >&2; exit 2; }

# Parse and check the list on the host, so a typo is a clear error before a 40-second boot.
names=() lines=() products=() total_timeout=0
declare -A seen=()
lineno=0
while IFS= read -r line || [[ -n "$line" ]]; do
    lineno=$((lineno + 1))
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    read -r name rest <<<"$line"
    [[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "vm-test: $list:$lineno: bad scenario name '$name'" >&2; exit 2; }
    [[ -z "${seen[$name]:-}" ]] || { echo "vm-test: $list:$lineno: duplicate scenario '$name'" >&2; exit 2; }
    seen[$name]=1
    t=120 line_products=()
    while [[ "$rest" =~ ^@([a-z]+)=([^[:space:]]+)[[:space:]]*(.*)$ ]]; do
        key=${BASH_REMATCH[1]} value=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
        case "$key" in
            mtu) [[ "$value" =~ ^[0-9]+$ ]] && ((value >= 48 && value <= 517)) \
                || { echo "vm-test: $list:$lineno: @mtu must be 48..517" >&2; exit 2; } ;;
            privacy) [[ "$value" =~ ^(off|device|network)$ ]] \
                || { echo "vm-test: $list:$lineno: @privacy must be off, device or network" >&2; exit 2; } ;;
            experimental) [[ "$value" =~ ^[01]$ ]] \
                || { echo "vm-test: $list:$lineno: @experimental must be 0 or 1" >&2; exit 2; } ;;
            controllers) [[ "$value" =~ ^[0-9]+$ ]] && ((value >= 2 && value <= 16)) \
                || { echo "vm-test: $list:$lineno: @controllers must be 2..16" >&2; exit 2; } ;;
            timeout) [[ "$value" =~ ^[0-9]+$ ]] && ((value > 0)) \
                || { echo "vm-test: $list:$lineno: @timeout must be seconds" >&2; exit 2; }
                t=$value ;;
            build) line_products+=("$value") ;;
            *) echo "vm-test: $list:$lineno: unknown setting @$key" >&2; exit 2 ;;
        esac
    done
    [[ -n "$rest" ]] || { echo "vm-test: $list:$lineno: scenario '$name' has no command" >&2; exit 2; }
    if ((${#selected[@]})); then
        want=0
        for s in "${selected[@]}"; do [[ "$s" == "$name" ]] && want=1; done
        ((want)) || continue
    fi
    names+=("$name")
    products+=("${line_products[@]}")
    lines+=("$line")
    total_timeout=$((total_timeout + t))
done <"$list"
for s in "${selected[@]}"; do
    [[ -n "${seen[$s]:-}" ]] || { echo "vm-test: no scenario '$s' in $list" >&2; exit 2; }
done
((${#names[@]})) || { echo "vm-test: no scenario to run in $list" >&2; exit 2; }
[[ -n "$limit" ]] || limit=$((180 + total_timeout))

# Swift scenario executables are built on the host (the VM shares the host root read-only).
if ((build && ${#products[@]})); then
    mapfile -t products < <(printf '%s\n' "${products[@]}" | sort -u)
    for p in "${products[@]}"; do
        echo "vm-test: swift build --product $p" >&2
        if ! (cd "$here" && ${SWIFT:-swift} build -c "${CONFIG:-debug}" --product "$p" >&2); then
            for n in "${names[@]}"; do echo "FAIL $n (swift build --product $p failed)"; done
            echo "0 passed, ${#names[@]} failed"
            exit 1
        fi
    done
fi

# A VM that never came up (exit 125 before any scenario ran: qemu itself failed, e.g. its assertion in
# msix_table_mmio_write seen once under TCG on 2026-12-04, or BlueZ did not start) is booted once more; the first
# boot's logs stay where they are and are named here. Scenarios that ran are never run again by this (their own
# retry is run-scenarios.sh's).
for boot in 1 2; do
    run=$here/.vm/runs/$(date +%Y%m%d-%H%M%S)-test
    [[ $boot == 1 ]] || run+=-boot2
    mkdir -p "$run" || { echo "vm-test: cannot create $run" >&2; exit 1; }
    printf '%s\n' "${lines[@]}" >"$run/scenarios.list"

    flags=(--run-dir "$run" --keep-logs --timeout "$limit")
    ((verbose)) || flags+=(--quiet)
    ((debug)) && flags+=(--debug)
    echo "vm-test: ${#names[@]} scenario(s) in one VM boot (limit ${limit}s); logs in $run" >&2
    "$here/scripts/vm-run.sh" "${flags[@]}" -- bash "$here/scripts/vm/run-scenarios.sh" "$run/scenarios.list"
    vm_rc=$?
    if ((vm_rc == 125)) && [[ ! -s "$run/results" && $boot == 1 ]]; then
        echo "vm-test: the VM did not come up and ran nothing (last lines of $run/console.log below); booting again" >&2
        tail -n 5 "$run/console.log" >&2 2>/dev/null
        continue
    fi
    break
done

case $vm_rc in
    0) why="" ;;
    124) why="VM killed at the ${limit}s limit" ;;
    125) why="VM or BlueZ did not come up" ;;
    *) why="VM runner exited $vm_rc" ;;
esac

passed=0 failed=0 retried=0 failed_names=()
for n in "${names[@]}"; do
    result=$(grep -E "^(PASS|FAIL) $n " "$run/results" 2>/dev/null | tail -n1)
    read -r verdict _ took reason <<<"$result"
    if [[ "$verdict" == PASS && -n "$reason" ]]; then
        echo "PASS $n (on the second try: the first failed, log $run/scenarios/$n.try1.log)"
        passed=$((passed + 1)) retried=$((retried + 1))
    elif [[ "$verdict" == PASS ]]; then
        echo "PASS $n"
        passed=$((passed + 1))
    elif [[ "$verdict" == FAIL ]]; then
        echo "FAIL $n ($reason after ${took}s; log $run/scenarios/$n.log)"
        failed=$((failed + 1)) failed_names+=("$n")
    else
        echo "FAIL $n (did not run: ${why:-no result recorded}; see $run/console.log)"
        failed=$((failed + 1))
    fi
done

# Why each failed scenario failed, at the end of the output (where a CI log that keeps only its tail still shows
# it): each try's lines that say FAIL or fail (a scenario's verdict may be followed by daemon logs it dumps), then
# its last lines.
for n in "${failed_names[@]}"; do
    for log in "$run/scenarios/$n.try1.log" "$run/scenarios/$n.log"; do
        [[ -f $log ]] || continue
        echo "vm-test: ${log#"$run/"}, its failures:" >&2
        grep -E 'FAIL|fail' "$log" | tail -n 6 | cut -c1-200 | sed 's/^/    /' >&2
        echo "vm-test: ${log#"$run/"}, its last lines:" >&2
        tail -n 6 "$log" | cut -c1-200 | sed 's/^/    /' >&2
    done
done

ready=$(sed -n 's/^host_boot_to_ready_ms=//p' "$run/timings" 2>/dev/null)
whole=$(sed -n 's/^total_ms=//p' "$run/timings" 2>/dev/null)
echo "vm-test: boot to BlueZ ready ${ready:-?} ms, whole VM run ${whole:-?} ms" >&2
if ((failed == 0 && retried == 0 && keep == 0)); then
    rm -rf "$run"
else
    echo "vm-test: logs kept in $run" >&2
fi
((retried == 0)) || echo "vm-test: $retried scenario(s) passed only on their second try; their first logs are in $run/scenarios"
echo "$passed passed, $failed failed"
((failed == 0))
