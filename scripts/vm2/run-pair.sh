#!/usr/bin/env bash
# Two machines that are really two: boots the shared emulated LE radio (scripts/vm2/radio.py, Bumble) and two
# qemu VMs, A = "laptop" and B = "desktop", each with its own kernel, systemd as PID 1, its own bluetoothd, on a
# stock Debian root (scripts/vm2/build-image.sh), installs the handoff .deb in both with apt-get, waits until
# both adapters are powered, runs TESTSCRIPT on the host, collects the logs and tears everything down.
#
#   scripts/vm2/run-pair.sh [options] -- TESTSCRIPT [ARGS...]
#
# Options:
#   --release R    bookworm (Debian 12, BlueZ 5.66, Linux 6.1), trixie (Debian 13, BlueZ 5.82, Linux 6.12), or
#                  mixed (A bookworm, B trixie); default bookworm
#   --deb PATH     the handoff .deb both VMs install (default: the newest handoff_*_amd64.deb at the repo root or
#                  under .build/deb/; none there is an error: run `make deb`, or pass
#                  --deb "$(scripts/vm2/stopgap-deb.sh)")
#   --no-deb       install nothing (radio and BlueZ checks only)
#   --privacy      before the .deb is installed, README's step 1 in each VM ("Privacy = device" in
#                  /etc/bluetooth/main.conf, then systemctl restart bluetooth); default: main.conf as Debian ships
#                  it (Docs/bluez.md, "Tier 3": what LE privacy does to the flows on this radio)
#   --mem MIB      memory per VM (default 768)
#   --timeout S    hard limit for everything, boot included (default 900); the VMs are killed after it
#   --run-dir DIR  where the logs go (default .vm/runs2/<timestamp>); kept
#   --names A,B    the VMs' host names, which handoffd takes as device names (default laptop,desktop; the name that
#                  sorts first initiates the pairing, so laptop,studio makes the laptop the initiator); with
#                  --machines N, N names (default laptop,desk1,desk2,…)
#   --machines N   boot N VMs (2 to 9: A, B, C, … I) on the one radio, all of --release (mixed: A bookworm, the
#                  others trixie); default 2
#   --lan          also join every VM to one private Ethernet (qemu's dgram netdev on Unix sockets in the run
#                  folder, a hub on the host: nothing routed, nothing leaves this machine): eth0 of A, B, … gets
#                  10.77.0.1/24, .2, … before the .deb is installed, as a LAN both machines already share (the fast
#                  lane, issue 28); default: no network at all
#   --hci-line L   how each VM reaches the radio: virtio (a virtio-serial port, handed to the kernel through
#                  /dev/vhci by hci-bridge.c; the default) or uart (an emulated 16550 with btattach, the first
#                  way: a port I/O access per byte under TCG, 3.2x slower in l2test; kept for comparison)
#
# TESTSCRIPT runs on the host with scripts/vm2 on PATH and HANDOFF_VM2_RUN set; it reaches the VMs with
#   vm2 A|B COMMAND...          runs the shell command line as root in that VM, prints its output, returns its status
#   vm2 --bg A|B NAME COMMAND   starts it in the background (output in $HANDOFF_VM2_RUN/A/share/cmd/NAME.out)
#   vm2 --wait A|B NAME [S]     waits for a background command (S seconds at most, default 120), returns its status
#   vm2 --put A|B FILE          copies a host file into the VM's /run/handoff-host/ (the VM's 9p share)
# The run folder gets, per VM: console.log (kernel + systemd on ttyS0), journal.txt (journalctl -b), hci.btsnoop
# (scripts/vm/monitor-capture.py, open with `btmon -r`), and the commands' outputs (share/cmd/); radio.log; timings.
# Exit status: TESTSCRIPT's; 124 at the time limit; 125 when the radio, a VM, BlueZ or the install did not come up.
# Nothing leaves this machine: the radio is Unix sockets, the command channel a 9p share, the VMs have no network
# (with --lan, one private Ethernet among themselves, on Unix sockets too).
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
cache=${HANDOFF_VM_CACHE:-$(dirname "$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null \
    || echo "$here/.git")")/.vm}
release=bookworm deb="" nodeb=0 mem=768 limit=900 run="" names="" count=2 privacy=0 lan=0 line=virtio
usage() { sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
fail() { echo "run-pair: $*" >&2; exit 125; }
while (($#)); do
    case "$1" in
        --release) release=${2:-}; shift 2 || usage ;;
        --deb) deb=${2:-}; shift 2 || usage ;;
        --no-deb) nodeb=1; shift ;;
        --mem) mem=${2:-}; shift 2 || usage ;;
        --timeout) limit=${2:-}; shift 2 || usage ;;
        --run-dir) run=${2:-}; shift 2 || usage ;;
        --names) names=${2:-}; shift 2 || usage ;;
        --machines) count=${2:-}; shift 2 || usage ;;
        --privacy) privacy=1; shift ;;
        --lan) lan=1; shift ;;
        --hci-line) line=${2:-}; shift 2 || usage ;;
        -h | --help) usage ;;
        --) shift; break ;;
        *) echo "run-pair: unknown option '$1'" >&2; usage ;;
    esac
done
(($#)) || { echo "run-pair: no TESTSCRIPT given" >&2; usage; }
case $release in
    bookworm | trixie) rel_a=$release rel_b=$release ;;
    mixed) rel_a=bookworm rel_b=trixie ;;
    *) echo "run-pair: --release must be bookworm, trixie or mixed" >&2; exit 2 ;;
esac
[[ $mem =~ ^[0-9]+$ && $limit =~ ^[0-9]+$ ]] || usage
case $line in
    virtio) hci=(-device virtio-serial-pci,id=vser -device virtserialport,bus=vser.0,chardev=hci,name=org.handoff.hci) ;;
    uart) hci=(-device isa-serial,chardev=hci) ;;
    *) echo "run-pair: --hci-line takes virtio or uart" >&2; exit 2 ;;
esac
[[ $count =~ ^[2-9]$ ]] || { echo "run-pair: --machines takes 2 to 9" >&2; exit 2; }
machines=(A B C D E F G H I)
machines=("${machines[@]:0:count}")
if [[ -z $names ]]; then
    names=laptop,desktop
    ((count > 2)) && names=laptop$(for ((i = 1; i < count; i++)); do printf ',desk%d' "$i"; done)
fi
IFS=, read -r -a hostnames <<<"$names"
((${#hostnames[@]} == count)) || { echo "run-pair: --names takes $count host names, comma-separated" >&2; exit 2; }
for n in "${hostnames[@]}"; do
    [[ $n =~ ^[a-z][a-z0-9-]{0,15}$ ]] || { echo "run-pair: '$n' is not a host name (a-z, 0-9, -; 16 at most)" >&2; exit 2; }
done
declare -A hostname_of release_of
for ((i = 0; i < count; i++)); do
    hostname_of[${machines[i]}]=${hostnames[i]}
    release_of[${machines[i]}]=$rel_b
done
release_of[A]=$rel_a
deadline=$(($(date +%s) + limit))
t0=$(date +%s%N)
ms() { echo $((($(date +%s%N) - t0) / 1000000)); }

# What the run needs, installed if missing (the images build themselves; Bumble goes into the repo's venv).
command -v qemu-system-x86_64 >/dev/null && command -v qemu-img >/dev/null \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-system-x86 qemu-utils >/dev/null; } \
    || fail "qemu-system-x86_64/qemu-img are missing and could not be installed"
venv=$here/.venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv" || fail "cannot create $venv"
"$venv/bin/python" -c 'import bumble' 2>/dev/null || "$venv/bin/pip" install -q -r "$here/scripts/vm2/requirements.txt" \
    || fail "pip install bumble failed"
for r in $rel_a $rel_b; do
    "$here/scripts/vm2/build-image.sh" "$r" || fail "the $r image could not be built"
done
if ((!nodeb)); then
    if [[ -z $deb ]]; then
        deb=$(ls -t "$here"/handoff_*_amd64.deb "$here"/.build/deb/handoff_*_amd64.deb 2>/dev/null | head -n1)
        [[ -n $deb ]] || fail "no handoff_*_amd64.deb at the repo root or in .build/deb: run 'make deb', or pass --deb \"\$(scripts/vm2/stopgap-deb.sh)\""
    fi
    [[ -f $deb ]] || fail "--deb $deb: no such file"
    deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
fi

[[ -n $run ]] || run=$cache/runs2/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run" || fail "cannot create $run"
run=$(cd "$run" && pwd)
export HANDOFF_VM2_RUN=$run
echo "run-pair: $(for m in "${machines[@]}"; do printf '%s=%s %s, ' "$m" "${hostname_of[$m]}" "${release_of[$m]}"; done)${mem} MiB each, limit ${limit}s, deb ${deb:-none}, logs $run" >&2

pids=()
radio_pid=""
cleanup() {
    local m i
    for m in "${machines[@]}"; do [[ -d $run/$m/share ]] && touch "$run/$m/share/poweroff"; done
    # The agents save the journal and power off; whoever has not within 40 s is killed.
    for ((i = 0; i < 200; i++)); do
        local alive=0
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        ((alive)) || break
        sleep 0.2
    done
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    [[ -n $radio_pid ]] && kill "$radio_pid" 2>/dev/null
    wait 2>/dev/null
    for m in "${machines[@]}"; do
        [[ -f $run/$m/share/journal.txt ]] && mv "$run/$m/share/journal.txt" "$run/$m/"
        [[ -f $run/$m/share/hci.btsnoop ]] && mv "$run/$m/share/hci.btsnoop" "$run/$m/"
        rm -f "$run/$m/overlay.qcow2" "$run/$m/share/"*.deb
    done
    echo "total_ms=$(ms)" >>"$run/timings"
}
trap 'cleanup' EXIT
test_pid=""
trap 'echo "run-pair: interrupted" >&2; [[ -n $test_pid ]] && kill -TERM "$test_pid" 2>/dev/null; exit 130' INT TERM HUP

# The radio: one Bumble controller per VM, on one local link, each behind a Unix socket.
mkdir -p "$run/radio"
socks=()
for m in "${machines[@]}"; do socks+=("$run/radio/$m.sock"); done
# Above everything else on the host where it may be (GNU nice still runs it, with a warning, where it may not): it
# stands for hardware, which answers within milliseconds; a guest kernel gives up on a command after 2 s.
nice -n -10 "$venv/bin/python" "$here/scripts/vm2/radio.py" "${socks[@]}" >"$run/radio.log" 2>&1 &
radio_pid=$!
for ((i = 0; i < 100; i++)); do grep -q '^radio: ready' "$run/radio.log" 2>/dev/null && break; sleep 0.1; done
grep -q '^radio: ready' "$run/radio.log" || { cat "$run/radio.log" >&2; fail "the radio did not start"; }
echo "radio_ready_ms=$(ms)" >>"$run/timings"

# --lan: each VM's NIC sends its frames to a Unix datagram socket of the hub (lan-hub.py), which passes each to the
# other VMs' sockets, as a switch without learning would.
lan_args() {   # lan_args A|B…: the qemu options of that VM's NIC
    local m=$1 i
    for ((i = 0; i < count; i++)); do [[ ${machines[i]} == "$m" ]] && break; done
    printf '%s\n' -netdev "dgram,id=lan,local.type=unix,local.path=$run/lan/$m.sock,remote.type=unix,remote.path=$run/lan/hub.sock" \
        -device "virtio-net-pci,netdev=lan,mac=52:54:00:77:00:0$((i + 1))"
}
if ((lan)); then
    mkdir -p "$run/lan"
    python3 "$here/scripts/vm2/lan-hub.py" "$run/lan" "${machines[@]}" >"$run/lan/hub.log" 2>&1 &
    pids+=($!)
    for ((i = 0; i < 50; i++)); do [[ -S $run/lan/hub.sock ]] && break; sleep 0.1; done
    [[ -S $run/lan/hub.sock ]] || { cat "$run/lan/hub.log" >&2; fail "the LAN hub did not start"; }
fi

boot() {   # boot A|B RELEASE
    local m=$1 rel=$2 img=$cache/images/$2
    local nic=()
    ((lan)) && mapfile -t nic < <(lan_args "$m")
    mkdir -p "$run/$m/share/cmd"
    cp "$here/scripts/vm2/guest-agent.sh" "$run/$m/share/agent.sh"
    qemu-img create -q -f qcow2 -F qcow2 -b "$img/root.qcow2" "$run/$m/overlay.qcow2" || fail "qemu-img create failed"
    cp "$img/manifest" "$run/$m/manifest"
    # nice: the radio stands for hardware, which answers an HCI command within milliseconds. With the VMs at the
    # radio's priority and a busy host (load 16 in one run), radio.py fell seconds behind, the guests' kernels timed
    # out LE Set Scan Enable (0x200c, 2 s) and lost track of the controller's scan state: a fault of the test bench.
    # clearcpuid=cx16 on the guest kernel's command line: four Debian 13 guests died of a double fault right after
    # the slab allocator's per-CPU `cmpxchg16b %gs:(%rsi)` (kmem_cache_alloc*, from hci_rx_work or flush_to_ldisc),
    # each time with EFLAGS holding bits of RAX: qemu 7.2's TCG corrupts the flags there. With the feature cleared
    # for the kernel only, its slab takes the locked path; programs keep CX16 (the Swift runtime needs it: with
    # `-cpu max,cx16=off` handoffd died of SIGILL at start). la57=off, tried first, did not help.
    nice -n 5 qemu-system-x86_64 -name "handoff-$m" -machine pc -accel tcg,tb-size=160 -cpu max -smp 1 -m "$mem" \
        -nodefaults -no-user-config -display none -no-reboot \
        -kernel "$img/vmlinuz" -initrd "$img/initrd.img" \
        -append "root=/dev/vda rw console=ttyS0 panic=-1 quiet systemd.show_status=1 systemd.hostname=${hostname_of[$m]} net.ifnames=0 clearcpuid=cx16" \
        -drive "file=$run/$m/overlay.qcow2,if=virtio,format=qcow2,cache=unsafe" \
        -serial "file:$run/$m/console.log" \
        -chardev "socket,id=hci,path=$run/radio/$m.sock" "${hci[@]}" \
        -virtfs "local,path=$run/$m/share,mount_tag=run,security_model=none,id=run" \
        -device virtio-rng-pci "${nic[@]}" \
        >"$run/$m/qemu.log" 2>&1 &
    pids+=($!)
    echo $! >"$run/$m/qemu.pid"
}
for m in "${machines[@]}"; do boot "$m" "${release_of[$m]}"; done

export PATH="$here/scripts/vm2:$PATH"
left() { echo $((deadline - $(date +%s))); }
for ((i = 0; i < count; i++)); do
    m=${machines[i]}
    while [[ ! -e $run/$m/share/agent-up ]]; do
        (($(left) > 0)) || fail "VM $m did not boot within ${limit}s; see $run/$m/console.log"
        kill -0 "${pids[i]}" 2>/dev/null \
            || { cat "$run/$m/qemu.log" >&2; fail "qemu for VM $m exited; see $run/$m/console.log"; }
        sleep 0.5
    done
    echo "${m}_agent_up_ms=$(ms) guest_uptime_s=$(cat "$run/$m/share/agent-up")" >>"$run/timings"
done
# The HCI capture: the kernel's monitor channel written as btsnoop by monitor-capture.py, not `btmon -w`, which
# decodes every record even when only writing, falls behind under TCG and stopped writing 40 s into these runs.
for m in "${machines[@]}"; do
    cp "$here/scripts/vm/monitor-capture.py" "$run/$m/share/"
    vm2 --bg "$m" btmon 'exec python3 /run/handoff-host/monitor-capture.py /run/handoff-host/hci.btsnoop' >/dev/null
done
# Ready: bluetoothd (systemd's bluetooth.service) has hci0 powered on the radio's controller.
for m in "${machines[@]}"; do
    vm2 "$m" 'for i in $(seq 240); do busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Powered 2>/dev/null | grep -q true && exit 0; sleep 0.5; done; systemctl status --no-pager handoff-hci bluetooth; exit 1' \
        >"$run/$m/ready.out" 2>&1 || { cat "$run/$m/ready.out" >&2; fail "VM $m: hci0 was not powered within 120 s"; }
    echo "${m}_powered_ms=$(ms)" >>"$run/timings"
done
if ((!nodeb && privacy)); then
    # README's "On a real machine", step 1, as a user does it before installing: LE privacy on in main.conf, then
    # bluetoothd restarted.
    for m in "${machines[@]}"; do
        vm2 "$m" 'f=/etc/bluetooth/main.conf
            if grep -q "^#* *Privacy *=" $f; then sed -i "0,/^#* *Privacy *=.*/s//Privacy = device/" $f
            else sed -i "0,/^\[General\]/s//[General]\nPrivacy = device/" $f; fi
            grep -q "^Privacy = device" $f && systemctl restart bluetooth &&
            for i in $(seq 240); do busctl get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Powered 2>/dev/null | grep -q true && exit 0; sleep 0.5; done
            exit 1' >"$run/$m/privacy.out" 2>&1 || { cat "$run/$m/privacy.out" >&2; fail "VM $m: Privacy = device in main.conf, or hci0 after the restart"; }
    done
    echo "privacy_ms=$(ms)" >>"$run/timings"
fi
if ((lan)); then
    for ((i = 0; i < count; i++)); do
        m=${machines[i]}
        vm2 "$m" "ip addr add 10.77.0.$((i + 1))/24 dev eth0 && ip link set eth0 up && for i in \$(seq 100); do ip -4 addr show dev eth0 | grep -q 'inet .*scope global' && ! ip addr show dev eth0 | grep -q tentative && exit 0; sleep 0.2; done; exit 1" \
            >"$run/$m/lan.out" 2>&1 || { cat "$run/$m/lan.out" >&2; fail "VM $m: eth0 on the LAN did not come up"; }
    done
    vm2 A "ping -c 1 -W 5 10.77.0.2 >/dev/null 2>&1 || (exec 3<>/dev/tcp/10.77.0.2/9) 2>&1 | grep -q refused" \
        || fail "the LAN: A cannot reach B (10.77.0.2)"
    echo "lan_ms=$(ms)" >>"$run/timings"
fi
if ((!nodeb)); then
    for m in "${machines[@]}"; do   # all at once
        cp "$deb" "$run/$m/share/"
        vm2 --bg "$m" install "apt-get install -y /run/handoff-host/$(basename "$deb")" >/dev/null
    done
    for m in "${machines[@]}"; do
        vm2 --wait "$m" install 600 >"$run/$m/install.out" 2>&1 \
            || { cat "$run/$m/install.out" >&2; fail "VM $m: apt-get install of the .deb failed"; }
    done
    echo "installed_ms=$(ms)" >>"$run/timings"
fi
echo "run-pair: ${#machines[@]} machines up after $(($(ms) / 1000)) s; running $*" >&2
(($(left) > 0)) || fail "no time left for the test"
# In the background, so that a signal to run-pair.sh is handled at once (the trap stops the test's group).
timeout --kill-after=10 "$(left)" "$@" &
test_pid=$!
wait "$test_pid"
rc=$?
test_pid=""
[[ $rc == 124 ]] && echo "run-pair: TESTSCRIPT hit the time limit (${limit}s in all)" >&2
echo "test_done_ms=$(ms) rc=$rc" >>"$run/timings"
echo "run-pair: exit $rc; logs in $run" >&2
exit "$rc"
