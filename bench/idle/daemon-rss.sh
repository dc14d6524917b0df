#!/usr/bin/env bash
# handoffd's resident memory at rest (issue 12 §3, goal: at most 20 MB), on the host: the real daemon over
# bluezoo on a private bus (scripts/bluezoo-bus.sh, as the daemon tests run it), idle for BENCH_REST_SECONDS (10),
# then, if a `handoff` CLI is at hand, with one current activity (a note made current with `handoff note edit`)
# for as long again. Per state: the wake-ups in the window (voluntary context switches of all threads, from
# /proc/PID/task/*/status) and the threads by name, VmRSS, RssAnon, RssFile, RssShmem (/proc/PID/status), PSS
# (smaps_rollup), and the ten mapped files with the most resident kB (/proc/PID/smaps).
#
#   bench/idle/daemon-rss.sh [HANDOFFD [HANDOFF]]    defaults: .build/release/handoffd, .build/debug/handoff
#   bench/idle/daemon-rss.sh --links [HANDOFFD]      only lists the Foundation libraries HANDOFFD needs (readelf)
# Writes bench/results/daemon-rss.json. A benchmark, not a test: it fails only when something does not run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
results=$root/bench/results
seconds=${BENCH_REST_SECONDS:-10}

if [[ "${1:-}" == --links ]]; then
    readelf -d "${2:-$root/.build/release/handoffd}" | grep -o 'lib[A-Za-z_]*Foundation[A-Za-z_]*\.so' || true
    exit 0
fi
daemon=$(realpath "${1:-$root/.build/release/handoffd}")
cli=${2:-$root/.build/debug/handoff}
[[ -x "$daemon" ]] || { echo "daemon-rss: no $daemon (swift build -c release --product handoffd)" >&2; exit 1; }

if [[ -z "${DBUS_SYSTEM_BUS_ADDRESS:-}" || -z "${HANDOFF_REST_ON_BUS:-}" ]]; then
    # Run again on a private bus with bluezoo; the script stops everything when we are done.
    HANDOFF_REST_ON_BUS=1 exec "$root/scripts/bluezoo-bus.sh" -- "$0" "$daemon" "$cli"
fi

work=$(mktemp -d /tmp/handoff-rest.XXXXXX)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$work"' EXIT
export HOME=$work/home XDG_DATA_HOME=$work/home HANDOFF_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS LANG=C.UTF-8
mkdir -p "$HOME"
start=$(date +%s%N)
"$daemon" --bus "$DBUS_SYSTEM_BUS_ADDRESS" --adapter hci0 --state-dir "$work/state" --name laptop \
    --notify-bus none >"$work/handoffd.log" 2>&1 &
pid=$!
# Start-up: until the daemon's log says it scans (the radio is up, the API is on the bus).
until grep -q 'scanning with' "$work/handoffd.log" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/handoffd.log" >&2; echo "daemon-rss: handoffd exited" >&2; exit 1; }
    sleep 0.02
done
startup_ms=$(( ($(date +%s%N) - start) / 1000000 ))

# sample NAME: one JSON object for the daemon's state now.
sample() {
    local status=/proc/$pid/status
    field() { awk -v f="$1:" '$1 == f { print $2 }' "$status"; }
    local pss libraries
    pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup")
    libraries=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { file = $6 } /^Rss:/ && file != "" { kb[file] += $2 }
        END { for (f in kb) print kb[f], f }' "/proc/$pid/smaps" | sort -rn | head -n 10 |
        awk '{ n = split($2, p, "/"); printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), p[n], $1 }')
    printf '{"VmRSS": %d, "RssAnon": %d, "RssFile": %d, "RssShmem": %d, "Pss": %d, "Threads": %d, "files_kb": {%s}}' \
        "$(field VmRSS)" "$(field RssAnon)" "$(field RssFile)" "$(field RssShmem)" "$pss" "$(field Threads)" \
        "$libraries"
}
show() { echo "$1: $2" | sed 's/, "files_kb"/\n  files (kB resident)/'; }
# switches: "TID VOLUNTARY" per thread of the daemon: each voluntary context switch is a sleep that a wake-up ended.
switches() {
    local task
    for task in /proc/"$pid"/task/*; do
        echo "${task##*/} $(awk '/^voluntary_ctxt_switches:/ { print $2 }' "$task/status" 2>/dev/null)"
    done
}
# rest: sleeps the window; prints the state's sample with its wake-ups (per thread, the switches in the window: a
# thread born in it counts from 0; one that ended in it is lost, so a Dispatch worker's churn undercounts) and the
# threads by name at the end.
rest() {
    local before after names wakeups
    before=$(switches)
    sleep "$seconds"
    after=$(switches)
    wakeups=$(awk 'NR == FNR { seen[$1] = $2; next } { n += $2 - ($1 in seen ? seen[$1] : 0) } END { print n + 0 }' \
        <(echo "$before") <(echo "$after"))
    names=$(cat /proc/"$pid"/task/*/comm | sort | uniq -c | awk '{ printf "%s\"%s\": %d", (NR > 1 ? ", " : ""), $2, $1 }')
    sample | sed "s/^{/{\"wakeups\": $wakeups, \"threads\": {$names}, /"
}

idle=$(rest)
show idle "$idle"
current=null
if [[ -x "$cli" ]]; then
    printf '# At rest\nnothing happens here\n' | "$cli" note edit rest --stdin --grace 600 >"$work/note.log" 2>&1 \
        || { cat "$work/note.log" >&2; echo "daemon-rss: note edit failed" >&2; exit 1; }
    current=$(rest)
    show current "$current"
fi
links=$(readelf -d "$daemon" | grep -o 'lib[A-Za-z_]*Foundation[A-Za-z_]*\.so' | paste -sd, || true)
echo "start-up to scanning: $startup_ms ms; Foundation libraries linked: ${links:-none}"
mkdir -p "$results"
cat >"$results/daemon-rss.json" <<JSON
{"date": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "commit": "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)",
 "daemon": "$daemon", "seconds": $seconds, "load": "$(cut -d' ' -f1-3 /proc/loadavg)", "startup_ms": $startup_ms,
 "foundation_links": "${links}", "idle_kb": $idle, "current_kb": $current}
JSON
echo "daemon-rss: results in bench/results/daemon-rss.json"
