#!/usr/bin/env bash
# The two-machine tier on every release pair (issue 24 §3): for bookworm, trixie and mixed (A bookworm, B trixie),
# boots the pair with scripts/vm2/run-pair.sh and runs the radio check (flow-radio.sh) and the installed flow
# (flow-note.sh). Any failure fails the whole; nothing is skipped.
#
#   scripts/vm2/test-matrix.sh [--deb PATH] [RELEASE...]      RELEASE: bookworm trixie mixed (default: all three)
#
# HANDOFF_MATRIX_FLOWS names the flows to run, each as FLOW or FLOW:NAME_A,NAME_B (the VMs' host names, which decide
# the pairing initiator: run-pair.sh --names); FLOW+FLOW… runs several in one boot, in order (run-flows.sh), and an
# entry with flow-lane boots the machines on a LAN as well (run-pair.sh --lan). Default "flow-radio flow-note
# flow-cross flow-lane flow-pair flow-pair:laptop,studio": flow-pair's ten rounds once with the desktop initiating
# and once with the laptop. `make test-installed` runs flow-note on bookworm, and flow-note+flow-lane+flow-cross
# (two rounds) in one boot on trixie.
#
# The .deb: --deb, else the newest handoff_*_amd64.deb at the repo root or under .build/deb/ (run-pair.sh's rule).
# A summary with each run's folder and timings is printed at the end.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
deb=()
[[ ${1:-} == --deb ]] && { deb=(--deb "${2:?--deb needs a path}"); shift 2; }
releases=("$@")
((${#releases[@]})) || releases=(bookworm trixie mixed)
summary=() failed=0
for r in "${releases[@]}"; do
    for entry in ${HANDOFF_MATRIX_FLOWS:-flow-radio flow-note flow-cross flow-lane flow-pair flow-pair:laptop,studio}; do
        start=$(date +%s)
        flow=${entry%%:*}
        pkg=("${deb[@]}")
        [[ $entry == *:* ]] && pkg+=(--names "${entry#*:}")
        limit=1200
        [[ $flow == flow-pair ]] && limit=2400   # ten rounds of about a minute, boot and install included
        [[ $flow == flow-radio ]] && pkg=(--no-deb)   # BlueZ's own tools only
        [[ +$flow+ == *+flow-lane+* ]] && pkg+=(--lan)
        IFS=+ read -r -a flows <<<"$flow"
        if "$here/scripts/vm2/run-pair.sh" --release "$r" "${pkg[@]}" --timeout "$limit" -- "$here/scripts/vm2/run-flows.sh" "${flows[@]}"; then
            summary+=("PASS $r $entry $(($(date +%s) - start)) s")
        else
            summary+=("FAIL $r $entry $(($(date +%s) - start)) s")
            failed=1
        fi
    done
done
printf '%s\n' "test-matrix:" "${summary[@]/#/  }"
exit "$failed"
