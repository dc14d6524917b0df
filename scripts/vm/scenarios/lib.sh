#!/usr/bin/env bash
# Helpers for tier-2 scenario scripts written with BlueZ's own tools. Source it; it runs inside the VM only.
#   fail MESSAGE                  print "scenario: MESSAGE" and exit 1
#   wait_until SECONDS CMD...     run CMD every 0.2 s until it succeeds; fail after SECONDS
#   adapter_address hciN          the adapter's Address property
#   prop PATH IFACE NAME          busctl get-property on org.bluez (prints "TYPE VALUE")
#   ctl_start NAME                a long-running bluetoothctl fed through a fifo; send lines with ctl NAME LINE;
#                                 its output goes to $SCENARIO_TMP/NAME.log; stopped (quit, then killed) on exit
set -uo pipefail

[[ "${HANDOFF_IN_VM:-}" == 1 ]] || { echo "scenario: run inside the VM (scripts/vm-run.sh / vm-test.sh)" >&2; exit 2; }
SCENARIO_TMP=$(mktemp -d /tmp/scenario.XXXXXX)
declare -A ctl_pids=()

fail() { echo "scenario: FAIL: $*" >&2; exit 1; }
note() { echo "scenario: $*" >&2; }

wait_until() {
    local limit=$1 start
    shift
    start=$(date +%s%N)
    until "$@" >/dev/null 2>&1; do
        (($(date +%s%N) - start < limit * 1000000000)) || return 1
        sleep 0.2
    done
}

prop() { busctl --system get-property org.bluez "$1" "$2" "$3"; }
adapter_address() { prop "/org/bluez/$1" org.bluez.Adapter1 Address | sed -e 's/^s "//' -e 's/"$//'; }
powered() { prop "/org/bluez/$1" org.bluez.Adapter1 Powered | grep -qx 'b true'; }

ctl_start() {
    local name=$1
    mkfifo "$SCENARIO_TMP/$name.in"
    bluetoothctl <"$SCENARIO_TMP/$name.in" >"$SCENARIO_TMP/$name.log" 2>&1 &
    ctl_pids[$name]=$!
    # Keep the fifo open for writing on an fd named after the session.
    exec {fd}>"$SCENARIO_TMP/$name.in"
    eval "ctl_fd_$name=$fd"
}
ctl() {
    local name=$1 fdvar="ctl_fd_$1"
    shift
    echo "$*" >&"${!fdvar}"
}
ctl_log() { cat "$SCENARIO_TMP/$1.log" 2>/dev/null; }

scenario_cleanup() {
    local name pid fdvar i
    for name in "${!ctl_pids[@]}"; do
        fdvar="ctl_fd_$name"
        echo quit >&"${!fdvar}" 2>/dev/null
        eval "exec ${!fdvar}>&-" 2>/dev/null
    done
    for name in "${!ctl_pids[@]}"; do
        pid=${ctl_pids[$name]}
        for ((i = 0; i < 30; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        echo "--- bluetoothctl session '$name':" >&2
        sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/\r//g' "$SCENARIO_TMP/$name.log" | tail -n 40 >&2
    done
    rm -rf "$SCENARIO_TMP"
}
trap scenario_cleanup EXIT

# Sets $privacy from the option `--privacy off|device` (default off), the only one the scenarios that set LE
# privacy take; anything else is an error.
read_privacy_option() {
    privacy=off
    while (($#)); do
        case "$1" in
            --privacy) privacy=${2:?--privacy needs off or device}; shift 2 ;;
            *) fail "unknown option $1" ;;
        esac
    done
}
