#!/usr/bin/env bash
# Guest-side control of the BlueZ stack inside the tier-2 VM (scripts/vm-run.sh boots it).
# Runs only inside the VM; a scenario calls it to restart bluetoothd or change its settings.
#
#   guest-bluez.sh start-stack                    modules, dbus-daemon, bluetoothd, btvirt, btmon; waits for ready
#   guest-bluez.sh stop-stack                     stops all of them (btmon last, so the trace is complete)
#   guest-bluez.sh restart-bluetoothd [options]   kills bluetoothd, starts it again, waits until both adapters
#                                                 are powered; options: --mtu N, --privacy MODE,
#                                                 --experimental 0|1 (bluetoothd -E), --signal SIG (TERM by
#                                                 default; KILL to simulate a crash), --no-wait; settings not
#                                                 given stay as they were
#   guest-bluez.sh ensure-bluetoothd [--mtu N] [--privacy MODE] [--experimental 0|1] [--controllers N]
#                                                 restarts bluetoothd only if it is down or runs other settings
#                                                 (settings not given: the VM's defaults); with another
#                                                 controller count than btvirt runs (--controllers, else
#                                                 HANDOFF_VM_CONTROLLERS), btvirt is restarted with N first
#   guest-bluez.sh stop-bluetoothd [--signal SIG] / start-bluetoothd [settings]
#   guest-bluez.sh wait-ready [SECONDS]           waits until hci0 and hci1 report Powered (default 30 s)
#   guest-bluez.sh btmon-rotate FILE              stops btmon (its capture moves to where it was meant to go) and
#                                                 starts a new one for FILE (written in guest tmpfs until then)
#   guest-bluez.sh status                         prints the running settings and the adapters' Powered state
#
# State lives in /run/handoff-vm (guest tmpfs): the settings bluetoothd runs with, pids, the log folder.
# Logs go to the run folder that vm-run.sh shares read-write with the host (HANDOFF_VM_LOGDIR).
set -euo pipefail

state=/run/handoff-vm
bluetoothd=/usr/libexec/bluetooth/bluetoothd
adapters=(hci0 hci1)

die() { echo "guest-bluez: $*" >&2; exit 1; }
say() { printf 'guest-bluez: [%s] %s\n' "$(cut -d' ' -f1 /proc/uptime)" "$*" >&2; }

# Only inside the VM (guest-init.sh sets HANDOFF_IN_VM=1): on a host it would replace the system bus socket.
if [[ "${HANDOFF_IN_VM:-}" != 1 ]]; then
    echo "guest-bluez: runs only inside the VM started by scripts/vm-run.sh (HANDOFF_IN_VM=1 is not set)" >&2
    exit 2
fi
mkdir -p "$state"
logdir=${HANDOFF_VM_LOGDIR:-$(cat "$state/logdir" 2>/dev/null || echo "$state/logs")}
mkdir -p "$logdir"
echo "$logdir" >"$state/logdir"

export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
repo=${HANDOFF_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}

pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }
pid_of() { cat "$state/$1.pid" 2>/dev/null || true; }

# stop NAME SIGNAL SECONDS: signal the recorded process, wait for it to go, SIGKILL it after SECONDS.
stop_proc() {
    local name=$1 sig=$2 limit=$3 pid i
    pid=$(pid_of "$name")
    if pid_alive "$pid"; then
        kill -s "$sig" "$pid" 2>/dev/null || true
        for ((i = 0; i < limit * 10; i++)); do
            pid_alive "$pid" || break
            sleep 0.1
        done
        if pid_alive "$pid"; then
            say "$name ($pid) ignored SIG$sig for ${limit}s; killing it"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        # Reap it if it is our child; otherwise wait until the kernel lets it go.
        wait "$pid" 2>/dev/null || true
        while pid_alive "$pid" && [[ "$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)" != Z ]]; do sleep 0.05; done
    fi
    rm -f "$state/$name.pid"
}

start_dbus() {
    local conf=$state/dbus-system.conf
    mkdir -p /run/dbus
    rm -f /run/dbus/system_bus_socket /run/dbus/pid
    {
        echo '<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"'
        echo ' "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">'
        echo '<busconfig>'
        echo '  <!-- The distribution system bus (BlueZ policy included) plus handoff policy and test policy. -->'
        echo '  <include>/usr/share/dbus-1/system.conf</include>'
        echo "  <includedir>$repo/dbus-policy</includedir>"
        echo "  <includedir>$repo/dbus-policy/test</includedir>"
        echo '</busconfig>'
    } >"$conf"
    dbus-daemon --config-file="$conf" --nofork --nopidfile --nosyslog \
        --print-address=3 3>"$state/dbus.address" >>"$logdir/dbus.log" 2>&1 &
    echo $! >"$state/dbus.pid"
    local i
    for ((i = 0; i < 100; i++)); do
        [[ -S /run/dbus/system_bus_socket ]] && busctl --system status org.freedesktop.DBus >/dev/null 2>&1 && return 0
        pid_alive "$(pid_of dbus)" || die "dbus-daemon exited at start; see $logdir/dbus.log"
        sleep 0.1
    done
    die "dbus-daemon did not answer within 10 s; see $logdir/dbus.log"
}

# write_main_conf MTU PRIVACY EXPERIMENTAL: the main.conf bluetoothd runs with; what tests depend on is explicit.
write_main_conf() {
    local mtu=$1 privacy=$2 experimental=$3
    [[ "$experimental" =~ ^[01]$ ]] || die "--experimental must be 0 or 1, not $experimental"
    ((mtu >= 48 && mtu <= 517)) || die "ExchangeMTU must be 48..517 (below 48 bluetoothd registers no adapter), not $mtu"
    case "$privacy" in off | device | network) ;; *) die "Privacy must be off, device or network, not $privacy" ;; esac
    cat >"$state/main.conf" <<EOF
# Generated by scripts/vm/guest-bluez.sh; see Docs/bluez.md.
[General]
Privacy = $privacy

[GATT]
ExchangeMTU = $mtu

[Policy]
AutoEnable = true
EOF
    printf '%s %s %s\n' "$mtu" "$privacy" "$experimental" >"$state/settings"
}

start_bluetoothd() {
    local mtu=${opt_mtu:-$(cut -d' ' -f1 "$state/settings" 2>/dev/null || echo "${HANDOFF_VM_MTU:-517}")}
    local privacy=${opt_privacy:-$(cut -d' ' -f2 "$state/settings" 2>/dev/null || echo "${HANDOFF_VM_PRIVACY:-off}")}
    local experimental=${opt_experimental:-$(cut -d' ' -f3 "$state/settings" 2>/dev/null \
        || echo "${HANDOFF_VM_BLUETOOTHD_EXPERIMENTAL:-0}")}
    pid_alive "$(pid_of bluetoothd)" && die "bluetoothd is already running"
    write_main_conf "$mtu" "$privacy" "$experimental"
    local flags=(-n -f "$state/main.conf")
    [[ "${HANDOFF_VM_BLUETOOTHD_DEBUG:-0}" == 1 ]] && flags+=(-d)
    [[ "$experimental" == 1 ]] && flags+=(-E)
    echo "=== bluetoothd ${flags[*]} (ExchangeMTU=$mtu Privacy=$privacy) at uptime $(cut -d' ' -f1 /proc/uptime)" \
        >>"$logdir/bluetoothd.log"
    cat "$state/main.conf" >>"$logdir/bluetoothd.log"
    setsid "$bluetoothd" "${flags[@]}" </dev/null >>"$logdir/bluetoothd.log" 2>&1 &
    echo $! >"$state/bluetoothd.pid"
    say "bluetoothd started (pid $!, ExchangeMTU=$mtu, Privacy=$privacy, experimental=$experimental)"
}

adapter_powered() {
    busctl --system get-property org.bluez "/org/bluez/$1" org.bluez.Adapter1 Powered 2>/dev/null | grep -qx 'b true'
}

wait_ready() {
    local limit=${1:-30} start now a ok
    start=$(date +%s%N)
    while :; do
        ok=1
        for a in "${adapters[@]}"; do adapter_powered "$a" || { ok=0; break; }; done
        ((ok)) && break
        pid_alive "$(pid_of bluetoothd)" || die "bluetoothd is not running; see $logdir/bluetoothd.log"
        now=$(date +%s%N)
        (((now - start) / 1000000000 < limit)) || die "adapters ${adapters[*]} not powered within ${limit}s; see $logdir"
        sleep 0.1
    done
    say "ready: ${adapters[*]} powered after $(((($(date +%s%N) - start) / 1000000))) ms"
}

# try_ready SECONDS: like wait_ready, but answers 1 instead of ending the script when the adapters stay unpowered.
try_ready() {
    (wait_ready "$1") && return 0
    return 1
}

# btmon writes to guest tmpfs ($state/btmon.live) and its decoded output goes nowhere: a per-packet write(2) over
# the 9p share plus the text decode made btmon fall behind under TCG, and the kernel then drops monitor packets for
# good (a 1 MiB L2CAP transfer was missing from its capture). stop_btmon moves the capture to its destination.
# A scenario that reads its own capture while it runs (bench/l2cap-ceiling.sh) finds it at $state/btmon.live.
start_btmon() {
    local file=$1
    rm -f "$state/btmon.live"
    echo "$file" >"$state/btmon.dest"
    btmon -w "$state/btmon.live" </dev/null >/dev/null 2>>"$logdir/btmon.log" &
    echo $! >"$state/btmon.pid"
}

stop_btmon() {
    stop_proc btmon TERM 3
    local dest
    dest=$(cat "$state/btmon.dest" 2>/dev/null || true)
    if [[ -n "$dest" && -e "$state/btmon.live" ]]; then
        cp "$state/btmon.live" "$dest" && rm -f "$state/btmon.live"
    fi
    rm -f "$state/btmon.dest"
}

# HANDOFF_VM_CONTROLLERS (default 2): how many controllers btvirt makes. The scenarios use hci0 and hci1; more
# (up to 16, btvirt's limit of devices that hear each other) are foreign advertisers for bench/crowded-room.sh.
start_btvirt() {
    local count=${1:-${HANDOFF_VM_CONTROLLERS:-2}} last
    [[ "$count" =~ ^[0-9]+$ ]] && ((count >= 2 && count <= 16)) || die "HANDOFF_VM_CONTROLLERS must be 2..16, not $count"
    last=$((count - 1))
    btvirt -L -l"$count" </dev/null >>"$logdir/btvirt.log" 2>&1 &
    echo $! >"$state/btvirt.pid"
    echo "$count" >"$state/controllers"
    local i
    for ((i = 0; i < 300; i++)); do
        [[ -e /sys/class/bluetooth/hci0 && -e /sys/class/bluetooth/hci1 && -e /sys/class/bluetooth/hci$last ]] \
            && return 0
        pid_alive "$(pid_of btvirt)" || die "btvirt exited at start; see $logdir/btvirt.log"
        sleep 0.1
    done
    die "btvirt created no hci0..hci$last within 30 s; see $logdir/btvirt.log"
}

parse_opts() {
    opt_mtu="" opt_privacy="" opt_experimental="" opt_signal=TERM opt_wait=1 opt_controllers=""
    while (($#)); do
        case "$1" in
            --mtu) opt_mtu=${2:?--mtu needs a value}; shift 2 ;;
            --privacy) opt_privacy=${2:?--privacy needs a value}; shift 2 ;;
            --experimental) opt_experimental=${2:?--experimental needs 0 or 1}; shift 2 ;;
            --signal) opt_signal=${2:?--signal needs a value}; shift 2 ;;
            --no-wait) opt_wait=0; shift ;;
            --controllers) opt_controllers=${2:?--controllers needs a count}; shift 2 ;;
            *) die "unknown option '$1'" ;;
        esac
    done
}

cmd=${1:-}
shift || true
case "$cmd" in
    start-stack)
        parse_opts "$@"
        modprobe bluetooth || die "modprobe bluetooth failed (kernel $(uname -r))"
        modprobe hci_vhci || die "modprobe hci_vhci failed (kernel $(uname -r))"
        start_btmon "$logdir/hci.btsnoop"
        start_dbus
        say "dbus-daemon up at $DBUS_SYSTEM_BUS_ADDRESS"
        # Under a loaded TCG host a virtual controller now and then never finishes its HCI init (btmon shows
        # "New Index" and no Reset for it), and bluetoothd then powers nothing. A fresh btvirt cures it, so the
        # stack gets three tries before the run is declared failed.
        for attempt in 1 2 3; do
            start_btvirt
            say "btvirt: hci0, hci1 present"
            start_bluetoothd
            try_ready "${HANDOFF_VM_READY_TIMEOUT:-60}" && break
            ((attempt < 3)) || die "adapters ${adapters[*]} not powered after 3 tries; see $logdir"
            say "try $attempt: adapters not powered; restarting btvirt and bluetoothd"
            stop_proc bluetoothd TERM 5
            stop_proc btvirt TERM 3
        done
        ;;
    stop-stack)
        stop_proc bluetoothd TERM 5
        stop_proc btvirt TERM 3
        stop_proc dbus TERM 3
        stop_btmon
        ;;
    start-bluetoothd)
        parse_opts "$@"
        start_bluetoothd
        ((opt_wait)) && wait_ready "${HANDOFF_VM_READY_TIMEOUT:-30}"
        ;;
    stop-bluetoothd)
        parse_opts "$@"
        stop_proc bluetoothd "$opt_signal" 5
        say "bluetoothd stopped (SIG$opt_signal)"
        ;;
    restart-bluetoothd)
        parse_opts "$@"
        stop_proc bluetoothd "$opt_signal" 5
        say "bluetoothd stopped (SIG$opt_signal)"
        start_bluetoothd
        ((opt_wait)) && wait_ready "${HANDOFF_VM_READY_TIMEOUT:-30}"
        ;;
    ensure-bluetoothd)
        parse_opts "$@"
        want_mtu=${opt_mtu:-${HANDOFF_VM_MTU:-517}} want_privacy=${opt_privacy:-${HANDOFF_VM_PRIVACY:-off}}
        want_experimental=${opt_experimental:-${HANDOFF_VM_BLUETOOTHD_EXPERIMENTAL:-0}}
        want="$want_mtu $want_privacy $want_experimental"
        want_controllers=${opt_controllers:-${HANDOFF_VM_CONTROLLERS:-2}}
        if [[ "$(cat "$state/controllers" 2>/dev/null || echo 2)" != "$want_controllers" ]]; then
            # A scenario's @controllers: btvirt again with that many controllers (the kernel hands the freed
            # indexes out again, so they are hci0.., with the same addresses), then bluetoothd on them.
            say "btvirt: $(cat "$state/controllers" 2>/dev/null || echo 2) controllers running, $want_controllers wanted"
            stop_proc bluetoothd TERM 5
            stop_proc btvirt TERM 3
            # The old controllers must be gone before new ones register, or those would get other indexes.
            for ((i = 0; i < 100; i++)); do compgen -G '/sys/class/bluetooth/hci*' >/dev/null || break; sleep 0.1; done
            start_btvirt "$want_controllers"
        fi
        if ! pid_alive "$(pid_of bluetoothd)" || [[ "$(cat "$state/settings" 2>/dev/null)" != "$want" ]]; then
            stop_proc bluetoothd TERM 5
            opt_mtu=$want_mtu opt_privacy=$want_privacy opt_experimental=$want_experimental
            start_bluetoothd
        fi
        # A scenario that failed half-way may have left an adapter switched off (share-flow's power cycle did):
        # switch it on again rather than fail every scenario after it.
        if pid_alive "$(pid_of bluetoothd)"; then
            for a in "${adapters[@]}"; do
                if busctl --system get-property org.bluez "/org/bluez/$a" org.bluez.Adapter1 Powered 2>/dev/null \
                    | grep -qx 'b false'; then
                    say "$a was left switched off; switching it on"
                    busctl --system set-property org.bluez "/org/bluez/$a" org.bluez.Adapter1 Powered b true || true
                fi
            done
        fi
        wait_ready "${HANDOFF_VM_READY_TIMEOUT:-30}"
        ;;
    wait-ready)
        wait_ready "${1:-30}"
        ;;
    btmon-rotate)
        [[ -n "${1:-}" ]] || die "btmon-rotate needs a file"
        stop_btmon
        start_btmon "$1"
        ;;
    status)
        echo "settings (ExchangeMTU Privacy experimental): $(cat "$state/settings" 2>/dev/null || echo none)"
        for n in dbus bluetoothd btvirt btmon; do
            p=$(pid_of "$n")
            if pid_alive "$p"; then echo "$n: running (pid $p)"; else echo "$n: not running"; fi
        done
        for a in "${adapters[@]}"; do
            if adapter_powered "$a"; then echo "$a: powered"; else echo "$a: not powered"; fi
        done
        ;;
    *)
        sed -n '2,22p' "$0" >&2
        exit 2
        ;;
esac
