#!/usr/bin/env bash
# Runs another flow with both daemons logging the radio's diagnostics (TESTSCRIPT for scripts/vm2/run-pair.sh):
# a systemd drop-in adds --debug to the installed unit's ExecStart, the way a user asked for a debug log would,
# then FLOW runs unchanged. For finding out why a flow failed; not part of any test target.
#   scripts/vm2/run-pair.sh ... -- scripts/vm2/flow-debug.sh scripts/vm2/flow-pair.sh
set -uo pipefail
flow=${1:?flow-debug: which flow?}; shift
for m in A B C D E F G H I; do
    [[ -d $HANDOFF_VM2_RUN/$m/share/cmd ]] || continue
    vm2 "$m" 'unit=$(systemctl show -P FragmentPath handoffd) && exec_start=$(sed -n "s/^ExecStart=//p" "$unit") &&
        mkdir -p /etc/systemd/system/handoffd.service.d &&
        printf "[Service]\nExecStart=\nExecStart=%s --debug\n" "$exec_start" >/etc/systemd/system/handoffd.service.d/debug.conf &&
        systemctl daemon-reload && systemctl restart handoffd && systemctl show -P ExecStart handoffd | grep -o -- "--debug"' \
        || { echo "flow-debug: $m: could not add --debug" >&2; exit 2; }
done
exec "$flow" "$@"
