# Sourced by the vm2 flow scripts (the TESTSCRIPTs of run-pair.sh), which each had a copy of these:
#
#   flow=flow-NAME; source "$(dirname "$0")/flow-lib.sh"
#
#   step TEXT            prints "== [HH:MM:SS] TEXT"
#   now; since T         a timestamp; the seconds since timestamp T, one decimal
#   fail TEXT            prints "flow-NAME: FAIL: TEXT" and the tail of the laptop's (A) and the desktop's (B)
#                        handoffd journals (fail_lines, default 30; with fail_bluetoothd_lines, bluetoothd's too),
#                        exits 1. A flow with other machines or other state to show defines its own after sourcing.
#   pair_unless_paired   both machines run `echo y | handoff pair` at the same moment, as two users would, each one's
#                        output prefixed with its name; nothing when the desktop lists the laptop already (an earlier
#                        flow of this boot paired them: run-flows.sh). Fails the flow when either pairing fails.

step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*"; }
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }

fail() {
    echo "$flow: FAIL: $*" >&2
    local m
    for m in A B; do
        echo "--- $m handoffd journal (tail)" >&2
        vm2 "$m" "journalctl -u handoffd --no-pager | tail -n ${fail_lines:-30}" >&2
        if ((${fail_bluetoothd_lines:-0} > 0)); then
            echo "--- $m bluetoothd (tail)" >&2
            vm2 "$m" "journalctl -u bluetooth --no-pager | tail -n $fail_bluetoothd_lines" >&2
        fi
    done
    exit 1
}

pair_unless_paired() {
    if vm2 B 'handoff devices' | grep -q laptop; then
        echo "(paired already: an earlier flow in this boot paired them)"
        return
    fi
    step "both: echo y | handoff pair (at the same moment)"
    vm2 --bg A pairA 'echo y | handoff pair' >/dev/null
    vm2 --bg B pairB 'echo y | handoff pair' >/dev/null
    local ra rb
    vm2 --wait A pairA 300 | sed 's/^/laptop: /'; ra=${PIPESTATUS[0]}
    vm2 --wait B pairB 300 | sed 's/^/desktop: /'; rb=${PIPESTATUS[0]}
    ((ra == 0 && rb == 0)) || fail "pairing: laptop exit $ra, desktop exit $rb"
}
