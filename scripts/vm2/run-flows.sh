#!/usr/bin/env bash
# Several flows in one boot (TESTSCRIPT for scripts/vm2/run-pair.sh): `run-flows.sh flow-note flow-lane` runs
# scripts/vm2/flow-note.sh, then flow-lane.sh, on the same machines, nothing restarted in between; stops at the first
# that fails, with its exit status. test-matrix.sh uses it for entries such as flow-note+flow-lane.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for flow in "$@"; do
    "$here/$flow.sh" || exit $?
done
