#!/usr/bin/env bash
# Tier 2: runs one command inside a qemu VM with real BlueZ (bluetoothd, two virtual LE controllers).
#
#   scripts/vm-run.sh [options] [--] COMMAND [ARGS...]
#
# The VM boots the host's newest Debian kernel (/boot/vmlinuz-*-amd64) with virtme-ng, sharing the host root
# filesystem read-only, so a host-built binary (.build/debug/…) runs unchanged. Inside, before COMMAND:
# modules bluetooth + hci_vhci, a system dbus-daemon (system.conf + dbus-policy/ + dbus-policy/test/),
# bluetoothd with a generated main.conf, `btvirt -L -l2` (hci0, hci1), btmon writing hci.btsnoop; then it
# waits until hci0 and hci1 are both Powered. COMMAND runs as root, in the current directory, without stdin,
# with DBUS_SYSTEM_BUS_ADDRESS exported and scripts/vm on PATH (so it can call
# `guest-bluez.sh restart-bluetoothd`). See Docs/bluez.md.
#
# Options:
#   --mtu N          [GATT] ExchangeMTU for bluetoothd, 48..517 (default 517)
#   --privacy MODE   [General] Privacy: off, device or network (default off)
#   --debug          run bluetoothd with -d (verbose bluetoothd.log)
#   --experimental   run bluetoothd with -E
#   --timeout S      hard limit for the whole VM, boot included (default 300); the VM is killed after it
#   --run-dir DIR    where the logs go (default .vm/runs/<timestamp>); shared read-write with the guest
#   --keep-logs      keep the run folder on success too (it is always kept on failure)
#   --quiet          console output only to console.log, not to stdout
#
# Environment: HANDOFF_VM_CONTROLLERS=N gives btvirt N controllers (2..16; default 2: hci0, hci1); the extra ones
# (hci2…) are for the crowded-room benchmark (bench/crowded-room.sh).
#
# Exit status: COMMAND's own; 124 when the VM hit --timeout; 125 when the VM or BlueZ did not come up;
# 130 when vm-run.sh was interrupted (SIGINT/SIGTERM/SIGHUP; the VM is stopped); 2 for bad usage.
# The run folder (kept on failure, path printed) holds console.log, command.log, bluetoothd.log, dbus.log,
# btvirt.log, btmon.log, hci.btsnoop (open with `btmon -r`), timings.
#
# Example:
#   scripts/vm-run.sh --mtu 48 -- .build/debug/BlueZScenarios gatt-64k
#   scripts/vm-run.sh -- bash -c 'bluetoothctl list && guest-bluez.sh restart-bluetoothd --signal KILL'
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
mtu=517 privacy=off debug=0 experimental=0 limit=300 run="" keep=0 quiet=0

usage() { sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "vm-run: $*" >&2; exit 125; }

while (($#)); do
    case "$1" in
        --mtu) mtu=${2:-}; shift 2 || usage ;;
        --privacy) privacy=${2:-}; shift 2 || usage ;;
        --debug) debug=1; shift ;;
        --experimental) experimental=1; shift ;;
        --timeout) limit=${2:-}; shift 2 || usage ;;
        --run-dir) run=${2:-}; shift 2 || usage ;;
        --keep-logs) keep=1; shift ;;
        --quiet) quiet=1; shift ;;
        -h | --help) usage ;;
        --) shift; break ;;
        -*) echo "vm-run: unknown option '$1'" >&2; usage ;;
        *) break ;;
    esac
done
(($#)) || { echo "vm-run: no command given" >&2; usage; }
[[ "$mtu" =~ ^[0-9]+$ ]] && ((mtu >= 48 && mtu <= 517)) \
    || { echo "vm-run: --mtu must be 48..517 (below 48 bluetoothd registers no adapter), not '$mtu'" >&2; exit 2; }
[[ "$privacy" =~ ^(off|device|network)$ ]] || { echo "vm-run: --privacy must be off, device or network" >&2; exit 2; }
[[ "$limit" =~ ^[0-9]+$ ]] && ((limit > 0)) || { echo "vm-run: --timeout must be a positive number of seconds" >&2; exit 2; }

# Everything the VM needs, checked up front so a missing piece is a clear error, not a hang or a skip.
export PATH="$here/.venv/bin:$PATH"
command -v vng >/dev/null || fail "virtme-ng (vng) is not in $here/.venv; run scripts/deps.sh test"
for tool in qemu-system-x86_64 busybox timeout; do
    command -v "$tool" >/dev/null || fail "'$tool' is missing; run scripts/deps.sh test"
done
for f in /usr/libexec/bluetooth/bluetoothd /usr/bin/btvirt /usr/bin/btmon /usr/bin/busctl /usr/bin/dbus-daemon \
    /usr/share/dbus-1/system.conf; do
    [[ -e "$f" ]] || fail "$f is missing; run scripts/deps.sh test"
done
kernel=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1)
[[ -n "$kernel" ]] || fail "no /boot/vmlinuz-*-amd64; run scripts/deps.sh test (package linux-image-amd64)"
kver=${kernel#/boot/vmlinuz-}
[[ -r "$kernel" ]] || fail "$kernel is not readable"
[[ -d "/lib/modules/$kver/kernel/drivers/bluetooth" ]] || fail "/lib/modules/$kver has no Bluetooth modules"

stamp=$(date +%Y%m%d-%H%M%S)
[[ -n "$run" ]] || run=$here/.vm/runs/$stamp-$$
mkdir -p "$run" || fail "cannot create $run"
run=$(cd "$run" && pwd)

cat >"$run/vm.env" <<EOF
HANDOFF_REPO=$(printf '%q' "$here")
HANDOFF_VM_CWD=$(printf '%q' "$PWD")
HANDOFF_VM_MTU=$mtu
HANDOFF_VM_PRIVACY=$privacy
HANDOFF_VM_BLUETOOTHD_DEBUG=$debug
HANDOFF_VM_BLUETOOTHD_EXPERIMENTAL=$experimental
HANDOFF_VM_READY_TIMEOUT=${HANDOFF_VM_READY_TIMEOUT:-90}
HANDOFF_VM_RETRIES=${HANDOFF_VM_RETRIES:-1}
HANDOFF_VM_CONTROLLERS=${HANDOFF_VM_CONTROLLERS:-2}
EOF
printf '%q ' "$@" >"$run/command"
rm -f "$run/ready" "$run/exit-code"

[[ $quiet == 1 ]] || echo "vm-run: kernel $kver, ExchangeMTU $mtu, Privacy $privacy, timeout ${limit}s, logs $run" >&2
start=$(date +%s%N)
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# Notes the host-side time at which the guest reported BlueZ ready (boot-to-ready as a user sees it).
(
    while [[ ! -e "$run/ready" && ! -e "$run/exit-code" ]]; do sleep 0.2; done
    [[ -e "$run/ready" ]] && echo "host_boot_to_ready_ms=$(ms_since "$start")" >>"$run/timings"
) &
watcher=$!

# vng opens /proc/self/fd/1 and 2 by path: both must be the same pipe, never one file (that garbles it).
# timeout runs vng in its own process group and kills the whole group (qemu included) at the limit.
if [[ $quiet == 1 ]]; then
    timeout --kill-after=15 "$limit" vng --run "$kernel" --disable-kvm --force-9p --user root -m 1G -p 2 \
        --name handoff-vm --rwdir="$run" --exec "bash $here/scripts/vm/guest-init.sh $run" \
        </dev/null > >(cat >"$run/console.log") 2>&1 &
else
    timeout --kill-after=15 "$limit" vng --run "$kernel" --disable-kvm --force-9p --user root -m 1G -p 2 \
        --name handoff-vm --rwdir="$run" --exec "bash $here/scripts/vm/guest-init.sh $run" \
        </dev/null > >(tee "$run/console.log") 2>&1 &
fi
vm=$!
interrupted=0
trap 'interrupted=1; kill -TERM "$vm" 2>/dev/null' INT TERM HUP
while :; do
    wait "$vm"
    vm_rc=$?
    kill -0 "$vm" 2>/dev/null || break
done
trap - INT TERM HUP
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null

echo "total_ms=$(ms_since "$start")" >>"$run/timings"
[[ -e "$run/ready" ]] && echo "guest_uptime_at_ready_s=$(cat "$run/ready")" >>"$run/timings"

if ((interrupted)) && [[ ! -e "$run/exit-code" ]]; then
    rc=130
    echo "vm-run: interrupted; the VM was stopped" >&2
elif [[ $vm_rc == 124 || $vm_rc == 137 ]] && [[ ! -e "$run/exit-code" ]]; then
    rc=124
    echo "vm-run: the VM did not finish within ${limit}s and was killed" >&2
elif [[ -e "$run/exit-code" ]]; then
    rc=$(cat "$run/exit-code")
else
    rc=125
    echo "vm-run: the VM ended (vng status $vm_rc) without reporting the command's status; see $run/console.log" >&2
fi
[[ $quiet == 1 ]] || sed 's/^/vm-run: /' "$run/timings" >&2

if [[ $rc == 0 && $keep == 0 ]]; then
    rm -rf "$run"
else
    [[ $rc == 0 ]] || echo "vm-run: exit $rc; logs kept in $run" >&2
    [[ $rc != 0 ]] || echo "vm-run: logs in $run" >&2
fi
exit "$rc"
