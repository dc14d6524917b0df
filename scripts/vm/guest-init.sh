#!/usr/bin/env bash
# The first thing the tier-2 VM runs (scripts/vm-run.sh passes it to vng --exec). Not for the host.
#
#   guest-init.sh RUN_DIR
#
# RUN_DIR is the host folder shared read-write with the guest. vm-run.sh leaves there:
#   vm.env    settings (HANDOFF_VM_MTU, HANDOFF_VM_PRIVACY, HANDOFF_REPO, HANDOFF_VM_CWD, ...), sourced here
#   command   the command to run, already shell-quoted
# This script brings up the BlueZ stack (scripts/vm/guest-bluez.sh start-stack), runs the command with
# DBUS_SYSTEM_BUS_ADDRESS exported, tears the stack down and writes, into RUN_DIR:
#   ready        guest uptime (s) when both adapters were powered; absent if the stack never came up
#   exit-code    the command's exit status (125 when the stack failed to come up)
#   command.log  the command's stdout and stderr (also echoed on the console)
set -uo pipefail

run=${1:?usage: guest-init.sh RUN_DIR}
[[ -f "$run/vm.env" && -f "$run/command" ]] || { echo "guest-init: $run has no vm.env/command" >&2; exit 125; }
# shellcheck disable=SC1091
source "$run/vm.env"
export HANDOFF_VM_LOGDIR=$run HANDOFF_REPO HANDOFF_VM_MTU HANDOFF_VM_PRIVACY
export HANDOFF_VM_BLUETOOTHD_DEBUG HANDOFF_VM_BLUETOOTHD_EXPERIMENTAL HANDOFF_VM_READY_TIMEOUT HANDOFF_VM_RETRIES
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
export HANDOFF_IN_VM=1 HOME=/root
export HANDOFF_VM_CONTROLLERS=${HANDOFF_VM_CONTROLLERS:-2}
# btvirt reports an advertiser only when scanning is switched on and can lose that report under emulation, so a
# handoffd that falls back to discovery (bluetoothd without -E) restarts it every 3 s in the VM, as before the
# advertisement monitor; in production it never does (BlueZRadioOptions.discoveryRefresh).
export HANDOFF_DISCOVERY_REFRESH=${HANDOFF_DISCOVERY_REFRESH:-3}
export PATH="$HANDOFF_REPO/scripts/vm:$HANDOFF_REPO/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}"

guest=$HANDOFF_REPO/scripts/vm/guest-bluez.sh
uptime_s() { cut -d' ' -f1 /proc/uptime; }

echo "guest-init: kernel $(uname -r), up $(uptime_s) s; logs in $run"
if "$guest" start-stack; then
    uptime_s >"$run/ready"
    echo "guest-init: BlueZ ready at uptime $(cat "$run/ready") s; running: $(cat "$run/command")"
    cd "${HANDOFF_VM_CWD:-$HANDOFF_REPO}" || cd "$HANDOFF_REPO" || exit 125
    # No stdin in the VM; the output goes to the console and to command.log.
    bash -c "$(cat "$run/command")" </dev/null 2>&1 | tee -a "$run/command.log"
    rc=${PIPESTATUS[0]}
    echo "guest-init: command exited $rc at uptime $(uptime_s) s"
else
    rc=125
    echo "guest-init: the BlueZ stack did not come up; see $run (bluetoothd.log, dbus.log, btvirt.log)" >&2
fi
"$guest" stop-stack || true
echo "$rc" >"$run/exit-code"
sync
exit "$rc"
