#!/usr/bin/env bash
# Shared set-up of the hostile-peer scenarios (issue 14 §3; Docs/reliability.md "Hostile peers"). Source it after
# lib.sh. A real pair of handoffd, as scripts/demo-flow.sh starts them: laptop = hci0, desktop = hci1, each on its
# own API bus with the production policy, paired through the real CLI (both answer y). hci2 (the scenario's
# @controllers=3) is the hostile peer: it is driven only by third-party tools (python3-dbus through bluetoothd,
# btmgmt, raw kernel sockets from Python), never by our code.
#
#   hostile_start             both daemons up and paired; sets laptop_pid, desktop_pid, bin, work, out
#   on MACHINE ARGS...        runs `handoff ARGS` as that machine's user
#   offer TEXT                `handoff note edit hostile --stdin` on the laptop
#   watch_start / watch_count  the desktop's `handoff watch` in the background / its "available:" lines so far
#   wait_available N SECONDS  until the watch has printed N "available:" lines
#   continue_expect TEXT      `handoff continue --print` on the desktop; fails unless it prints exactly TEXT
#   alive                     fails unless both daemons still run
#   cpu_ticks PID             utime + stime of PID, in clock ticks (/proc/PID/stat fields 14 and 15)
#   rss_kb PID                VmRSS of PID
#   hostile_address           the hostile adapter's address (hci2)
#   laptop_links_idle         until the laptop (hci0) has no LE link, dropping one that lingers (see below)
#   figure NAME VALUE         prints "FIGURE NAME VALUE" (the figures Docs/reliability.md quotes) into the log
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
bin=${HANDOFF_BIN_DIR:-$repo/.build/debug}
out=${HANDOFF_VM_ARTIFACTS:-$SCENARIO_TMP/files}
mkdir -p "$out"
work=$SCENARIO_TMP/hostile
mkdir -p "$work"
hostile_pids=()
declare -A bus home
tick=$(getconf CLK_TCK)

hostile_stop() {
    local pid
    for pid in "${hostile_pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    scenario_cleanup
}
trap hostile_stop EXIT

on() {
    local machine=$1; shift
    HANDOFF_BUS_ADDRESS=${bus[$machine]} XDG_DATA_HOME=${home[$machine]} HOME=${home[$machine]} "$bin/handoff" "$@"
}
figure() { echo "FIGURE $1 $2"; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
hostile_address() { adapter_address hci2; }

# The laptop's LE links as bluetoothd sees them: the object path of every Device1 under hci0 that is Connected.
laptop_links() {
    local path
    for path in $(busctl --system tree --list org.bluez 2>/dev/null | grep -E '^/org/bluez/hci0/dev_[0-9A-F_]{17}$'); do
        prop "$path" org.bluez.Device1 Connected 2>/dev/null | grep -qx 'b true' && echo "$path"
    done
}
no_laptop_links() { [[ -z $(laptop_links) ]]; }

# btvirt 5.66 cannot serve two LE links to one controller at once: with the desktop (hci1) linked to the laptop
# (hci0), a stranger's (hci2) connection to the laptop gets its ATT responses on the other link's channel
# ("Received unexpected ATT response", then "Bad file descriptor"), its services never resolve, and bluetoothd
# crashes at a later connection (Docs/bluez.md). Such a link often comes back right after pairing, made by the
# kernel with no client asking (it appears once both daemons stop discovering; bluetoothd's EATT connects, pending
# when the pairing link dropped, are the likely cause). A scenario whose stranger connects to the laptop therefore
# starts from a laptop without links: it waits, then drops a link that lingers (nothing uses it) with
# Device1.Disconnect. hostile-hold, which holds a stranger's link on purpose while the desktop continues, meets the same
# limit, and is out of the tier.
laptop_links_idle() {
    local links start path
    links=$(laptop_links | wc -l) start=$(date +%s.%N)
    if wait_until 10 no_laptop_links; then
        note "the laptop's LE links before the stranger connects: $links, none after $(awk -v a="$(date +%s.%N)" -v b="$start" 'BEGIN { printf "%.1f", a - b }') s"
        return 0
    fi
    for path in $(laptop_links); do
        note "the laptop still has an idle LE link ($path) after 10 s; dropping it (Device1.Disconnect)"
        busctl --system --timeout=10 call org.bluez "$path" org.bluez.Device1 Disconnect >/dev/null 2>&1
    done
    wait_until 10 no_laptop_links || fail "the laptop's LE links did not go: $(laptop_links | tr '\n' ' ')"
}

alive() {
    kill -0 "$laptop_pid" 2>/dev/null || { tail -n 30 "$out/laptop-handoffd.log" >&2; fail "the laptop's handoffd exited"; }
    kill -0 "$desktop_pid" 2>/dev/null || { tail -n 30 "$out/desktop-handoffd.log" >&2; fail "the desktop's handoffd exited"; }
    on laptop status >/dev/null 2>&1 || fail "the laptop's handoffd does not answer 'handoff status'"
    on desktop status >/dev/null 2>&1 || fail "the desktop's handoffd does not answer 'handoff status'"
}

hostile_start() {
    for prog in handoffd handoff; do [[ -x $bin/$prog ]] || fail "$bin/$prog is not built"; done
    wait_until 30 powered hci2 || fail "hci2 (the hostile controller) is not powered; is the scenario @controllers=3?"
    # Each scenario starts from a silent stranger: no advertising instance an earlier scenario left on hci2 (the
    # kernel keeps them across bluetoothd restarts; a flood's made-up pairing beacons would spoil the pairing).
    # (MGMT Remove Advertising of instance 0 answers Invalid Parameters when there is none: not an error here.)
    btmgmt --index 2 clr-adv >/dev/null 2>&1 || true
    local machine adapter api
    for machine in laptop desktop; do
        mkdir -p "$work/$machine"
        api=$("$repo/scripts/api-bus.sh" "$work/$machine/api")
        bus[$machine]=$(sed -n 1p <<<"$api")
        hostile_pids+=("$(sed -n 2p <<<"$api")")
        home[$machine]=$work/$machine/home
    done
    "$bin/handoffd" --adapter hci0 --name laptop --bus "${bus[laptop]}" --state-dir "$work/laptop/state" \
        >"$out/laptop-handoffd.log" 2>&1 &
    laptop_pid=$!
    hostile_pids+=("$laptop_pid")
    "$bin/handoffd" --adapter hci1 --name desktop --bus "${bus[desktop]}" --state-dir "$work/desktop/state" \
        >"$out/desktop-handoffd.log" 2>&1 &
    desktop_pid=$!
    hostile_pids+=("$desktop_pid")
    for machine in laptop desktop; do
        wait_until 30 on "$machine" status || { cat "$out/$machine-handoffd.log" >&2; fail "the $machine daemon did not start"; }
    done
    local try
    for try in 1 2; do
        (echo y | on laptop pair >"$work/laptop.pair" 2>&1; echo $? >"$work/laptop.pair.rc") &
        local a=$!
        (echo y | on desktop pair >"$work/desktop.pair" 2>&1; echo $? >"$work/desktop.pair.rc") &
        local b=$!
        wait $a $b
        [[ $(cat "$work/laptop.pair.rc") == 0 && $(cat "$work/desktop.pair.rc") == 0 ]] && break
        cat "$work/laptop.pair" "$work/desktop.pair" >&2
        ((try < 2)) || fail "the real devices did not pair"
        sleep 1
    done
    note "paired: laptop (hci0 $(adapter_address hci0), pid $laptop_pid), desktop (hci1 $(adapter_address hci1), pid $desktop_pid); hostile hci2 $(hostile_address)"
}

# The watch must run before the first offer: it prints only what appears after it subscribed.
offer() {
    watch_start
    printf '%s' "$1" | on laptop note edit hostile --stdin --grace 300 || fail "note edit failed on the laptop"
}

watch_pid=""
watch_start() {
    [[ -n $watch_pid ]] && return 0
    on desktop watch >"$work/watch.out" 2>&1 &
    watch_pid=$!
    hostile_pids+=("$watch_pid")
    sleep 0.5
}
watch_count() { grep -c '^available:' "$work/watch.out" 2>/dev/null || true; }
has_available() { (($(watch_count) >= $1)); }   # counted afresh at every try of wait_until
wait_available() {
    local want=$1 limit=$2
    wait_until "$limit" has_available "$want" \
        || { cat "$work/watch.out" >&2; fail "the desktop's watch printed $(watch_count) 'available:' lines, not $want, in ${limit}s"; }
}

continue_expect() {
    local want=$1 status
    on desktop continue --print >"$work/continued.txt" 2>"$work/continue.err"
    status=$?
    ((status == 0)) || { cat "$work/continue.err" >&2; tail -n 20 "$out"/*-handoffd.log >&2; fail "continue failed (exit $status)"; }
    [[ $(cat "$work/continued.txt") == "$(printf "%s" "$want")" ]] || fail "the continued note differs from the laptop's"
    note "continued: $(wc -c <"$work/continued.txt") bytes intact ($(grep -o 'continued .* s over .*' "$out/desktop-handoffd.log" | tail -n1))"
}
