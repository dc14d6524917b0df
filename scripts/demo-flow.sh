#!/usr/bin/env bash
# The demo's flow, on whatever BlueZ DBUS_SYSTEM_BUS_ADDRESS (or the system bus) leads to: two handoffd, one per
# adapter (hci0 = "laptop", hci1 = "desktop"), each with its own API bus (scripts/api-bus.sh, our policy); they
# pair (both confirm the code), `handoff note edit --stdin` on the laptop, the desktop's `handoff watch` line,
# `handoff continue --print` on the desktop, and the time each step took. Exit 0 when the note arrived intact.
#
#   scripts/demo-flow.sh [--discoverable] [--keep DIR]
#
# Run by scripts/demo.sh inside the VM (real bluetoothd, two btvirt controllers), and on the host against bluezoo
# with --discoverable (bluezoo only reports discoverable advertisements). Uses the built .build/debug binaries
# (HANDOFF_BIN_DIR overrides). --keep DIR keeps the daemons' logs and state there.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=${HANDOFF_BIN_DIR:-$here/.build/debug}
extra=(${HANDOFFD_FLAGS:-}) keep=""
while (($#)); do
    case "$1" in
        --discoverable) extra+=(--discoverable); shift ;;
        --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
        *) echo "demo-flow: unknown option $1" >&2; exit 2 ;;
    esac
done
for program in handoffd handoff; do
    [[ -x $bin/$program ]] || { echo "demo-flow: $bin/$program is not built (swift build)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/handoff-demo.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    if [[ -n $keep ]]; then mkdir -p "$keep" && cp -r "$work"/. "$keep"/ 2>/dev/null; fi
    rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }
started=$(now)
step_start=$started
timings=()
step() {   # step NAME: records the time since the previous step
    local t; t=$(now)
    timings+=("$(awk -v name="$1" -v a="$t" -v b="$step_start" 'BEGIN { printf "%-34s %6.2f s", name, a - b }')")
    step_start=$t
}
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '%s$ %s\n' "$1" "${*:2}"; }

# Two machines: an API bus each (our production policy), one daemon per adapter.
declare -A bus home
for machine in laptop desktop; do
    mkdir -p "$work/$machine"
    out=$("$here/scripts/api-bus.sh" "$work/$machine/api")
    bus[$machine]=$(sed -n 1p <<<"$out")
    pids+=("$(sed -n 2p <<<"$out")")
    home[$machine]=$work/$machine/home
done
say "two machines in one box: laptop = hci0, desktop = hci1, each handoffd on its own API bus"
"$bin/handoffd" --adapter hci0 --name laptop --bus "${bus[laptop]}" --state-dir "$work/laptop/state" \
    "${extra[@]}" >"$work/laptop/handoffd.log" 2>&1 &
pids+=($!)
"$bin/handoffd" --adapter hci1 --name desktop --bus "${bus[desktop]}" --state-dir "$work/desktop/state" \
    "${extra[@]}" >"$work/desktop/handoffd.log" 2>&1 &
pids+=($!)
on() {   # on MACHINE handoff ARGS...: runs the CLI as that machine's user
    local machine=$1; shift
    HANDOFF_BUS_ADDRESS=${bus[$machine]} XDG_DATA_HOME=${home[$machine]} HOME=${home[$machine]} "$bin/handoff" "$@"
}
for machine in laptop desktop; do
    for _ in $(seq 100); do
        on "$machine" status >/dev/null 2>&1 && break
        sleep 0.2
    done
    on "$machine" status >/dev/null 2>&1 || {
        echo "demo-flow: the $machine daemon did not start:" >&2; cat "$work/$machine/handoffd.log" >&2; exit 1; }
done
show laptop handoff status; on laptop status
step "start two daemons"

say "pair them: both run 'handoff pair' and answer y to the code"
(echo y | on laptop pair >"$work/laptop/pair.out" 2>&1; echo $? >"$work/laptop/pair.rc") &
pair_laptop=$!
(echo y | on desktop pair >"$work/desktop/pair.out" 2>&1; echo $? >"$work/desktop/pair.rc") &
pair_desktop=$!
wait $pair_laptop $pair_desktop
for machine in laptop desktop; do
    show "$machine" "echo y | handoff pair"
    cat "$work/$machine/pair.out"; echo
done
[[ $(cat "$work/laptop/pair.rc") == 0 && $(cat "$work/desktop/pair.rc") == 0 ]] || {
    echo "demo-flow: pairing failed" >&2; tail -n 20 "$work"/*/handoffd.log >&2; exit 1; }
show desktop handoff devices; on desktop devices
step "pair (code confirmed on both)"

say "the desktop watches; the laptop saves a note"
on desktop watch >"$work/desktop/watch.out" 2>&1 &
watch_pid=$!
pids+=($watch_pid)
sleep 0.5
note=$'# Groceries\nmilk\neggs\nbread\n'
show laptop "printf '# Groceries\\nmilk\\neggs\\nbread\\n' | handoff note edit groceries --stdin --grace 120"
printf '%s' "$note" | on laptop note edit groceries --stdin --grace 120 || {
    echo "demo-flow: note edit failed" >&2; exit 1; }
step "note edit --stdin on the laptop"

for _ in $(seq 600); do
    grep -q '^available:' "$work/desktop/watch.out" && break
    sleep 0.1
done
show desktop "handoff watch"
cat "$work/desktop/watch.out"
grep -q '^available:' "$work/desktop/watch.out" || { echo "demo-flow: the desktop saw nothing" >&2; exit 1; }
kill $watch_pid 2>/dev/null
step "desktop notified (watch line)"

say "continue on the desktop"
show desktop "handoff continue --print"
on desktop continue --print >"$work/desktop/continued.txt" 2>"$work/desktop/continue.err"
status=$?
cat "$work/desktop/continued.txt"; cat "$work/desktop/continue.err"
step "continue --print on the desktop"
[[ $status == 0 ]] || { echo "demo-flow: continue failed ($status)" >&2; tail -n 20 "$work"/*/handoffd.log >&2; exit 1; }
if [[ $(cat "$work/desktop/continued.txt") == "$(printf '%s' "$note")" ]]; then
    echo "(identical to the laptop's note)"
else
    echo "demo-flow: the continued note differs from the laptop's" >&2; exit 1
fi

say "timings"
printf '%s\n' "${timings[@]}"
awk -v a="$(now)" -v b="$started" 'BEGIN { printf "%-34s %6.2f s\n", "total", a - b }'
