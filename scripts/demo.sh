#!/usr/bin/env bash
# `make demo`: two machines in a VM with the real bluetoothd and two virtual controllers. handoffd on hci0
# ("laptop") and on hci1 ("desktop"), each with its own API bus; they pair (both confirm the code, shown), the
# laptop saves a note with `handoff note edit --stdin`, the desktop's `handoff watch` prints its line, and
# `handoff continue --print` on the desktop prints the restored note and the path it took (the L2CAP channel);
# then the time of each step.
#
#   scripts/demo.sh [--bluezoo] [--keep-logs]
#
# It builds handoffd and handoff first when they are missing or older than the sources, and installs what is
# missing (scripts/deps.sh test). --bluezoo runs the same flow on the host against bluezoo (the BlueZ mock)
# instead of the VM. The flow itself is scripts/demo-flow.sh.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
mode=vm keep=()
while (($#)); do
    case "$1" in
        --bluezoo) mode=bluezoo; shift ;;
        --keep-logs) keep=(--keep-logs); shift ;;
        *) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done

t0=$(date +%s.%N)
scripts/deps.sh test >&2 || { echo "demo: scripts/deps.sh test failed" >&2; exit 1; }
stale=0
for program in handoffd handoff; do
    binary=.build/debug/$program
    if [[ ! -x $binary ]] || [[ -n $(find Sources Package.swift -newer "$binary" -name '*.swift' -print -quit) ]]; then
        stale=1
    fi
done
if ((stale)); then
    echo "demo: building handoffd and handoff" >&2
    swift build --product handoffd >&2 && swift build --product handoff >&2 || { echo "demo: build failed" >&2; exit 1; }
fi
t1=$(date +%s.%N)

if [[ $mode == bluezoo ]]; then
    scripts/bluezoo-bus.sh -- scripts/demo-flow.sh --discoverable
    status=$?
else
    scripts/vm-run.sh --timeout 420 "${keep[@]}" -- scripts/demo-flow.sh
    status=$?
fi
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v mode="$mode" 'BEGIN {
    printf "demo: deps and build %.1f s, %s run %.1f s (boot included), total %.1f s\n", b - a, mode, c - b, c - a }' >&2
exit $status
