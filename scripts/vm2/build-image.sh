#!/usr/bin/env bash
# Builds a bootable stock Debian root for the two-machine VM tier (scripts/vm2/run-pair.sh), with mmdebstrap.
#
#   scripts/vm2/build-image.sh [--force] RELEASE        RELEASE: bookworm (Debian 12) or trixie (Debian 13)
#
# Output, cached under .vm/images/RELEASE/ (gitignored), rebuilt only with --force or when this script changed:
#   root.qcow2    ext4 root filesystem (no partition table; the VM boots with root=/dev/vda), used read-only as
#                 the backing file of one throw-away overlay per VM
#   vmlinuz, initrd.img   the release's own kernel (linux-image-amd64) and initramfs, taken out of the image
#   manifest      release, kernel, BlueZ and systemd versions, package list
#
# What is in the image: systemd as PID 1, dbus (stock system bus policy), udev, bluez (bluetoothd, btattach,
# btmon, bluetoothctl), bluez-test-tools (l2test), python3 and python3-dbus, the run-time libraries the handoff .deb depends on
# (so `apt-get install ./handoff_*.deb` works offline), and two units of ours:
#   handoff-hci.service    the VM's line to the shared emulated radio as hci0: a virtio-serial port through
#                          /dev/vhci (hci-bridge.c, built here), or btattach on the serial line /dev/ttyS1
#   handoff-agent.service  mounts the 9p share "run" and runs the agent run-pair.sh puts there (guest-agent.sh),
#                          which runs the commands the host leaves in the share
# The host's apt sources are not touched: mmdebstrap gets its own sources for both releases (RELEASE,
# RELEASE-updates and RELEASE-security from HANDOFF_VM_MIRROR, default http://deb.debian.org/debian, and its
# debian-security sibling), so the image is a Debian as installed today, with the current point-release kernel.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
force=0
[[ "${1:-}" == --force ]] && { force=1; shift; }
release=${1:-}
case "$release" in bookworm | trixie) ;; *) echo "usage: build-image.sh [--force] bookworm|trixie" >&2; exit 2 ;; esac
mirror=${HANDOFF_VM_MIRROR:-http://deb.debian.org/debian}
cache=${HANDOFF_VM_CACHE:-$(dirname "$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$here/.git")")/.vm}
out=$cache/images/$release
fail() { echo "build-image: $*" >&2; exit 1; }

# Everything the build needs, installed by the script itself on a fresh Debian host (as root).
need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
command -v qemu-img >/dev/null || need+=(qemu-utils)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
if ((${#need[@]})); then
    [[ $(id -u) == 0 ]] || fail "missing ${need[*]}; install them (apt-get install ${need[*]}) or run as root"
    echo "build-image: installing ${need[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null \
        || fail "apt-get install ${need[*]} failed"
fi
[[ $(id -u) == 0 ]] || fail "mmdebstrap's directory mode and mkfs.ext4 -d need root here"

# The cache key: this script and the bridge's source (the agent itself comes from the share at each boot, so it is
# not in the image).
key=$(cat "$0" "$here/scripts/vm2/hci-bridge.c" | sha256sum | cut -c1-16)
if [[ $force == 0 && -f "$out/manifest" && "$(cat "$out/key" 2>/dev/null)" == "$key" ]]; then
    echo "build-image: $release is up to date in $out" >&2
    exit 0
fi

mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/handoff-image.XXXXXX")
trap 'rm -rf --one-file-system "$tmp"' EXIT
root=$tmp/root

# The guest's end of the radio's virtio-serial line (hci-bridge.c), static so that it runs on either release.
command -v gcc >/dev/null || fail "gcc is needed to build scripts/vm2/hci-bridge.c"
gcc -O2 -static -Wall -Wextra -Werror -o "$tmp/hci-bridge" "$here/scripts/vm2/hci-bridge.c" || fail "cannot build hci-bridge"

pkgs=(systemd systemd-sysv dbus udev kmod procps util-linux iproute2 less
    linux-image-amd64 initramfs-tools
    bluez bluez-test-tools python3
    # a stranger's tools in the many-machine flow (scripts/vm2/flow-many.sh: hostile-peer.py talks to bluetoothd)
    python3-dbus
    # run-time libraries of handoffd/handoff (Depends of the .deb), so that apt-get install ./handoff_*.deb is offline
    libdbus-1-3 libsodium23 libbluetooth3 libsystemd0 libstdc++6 libgcc-s1 libcap2 libgcrypt20 liblzma5 libzstd1
    liblz4-1)

echo "build-image: mmdebstrap $release from $mirror into $root" >&2
start=$(date +%s)
mmdebstrap --variant=minbase --include="$(printf '%s,' "${pkgs[@]}" | sed 's/,$//')" \
    --aptopt='Acquire::Languages "none"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='echo handoff-vm >"$1/etc/hostname"' \
    --customize-hook='printf "/dev/vda / ext4 rw,errors=remount-ro 0 1\n" >"$1/etc/fstab"' \
    --customize-hook='chroot "$1" passwd -d root' \
    --customize-hook='chroot "$1" useradd -m -s /bin/bash -u 1000 alice' \
    --customize-hook='chroot "$1" useradd -m -s /bin/bash -u 1001 mallory' \
    --customize-hook='cat >"$1/usr/local/sbin/handoff-vm-agent" <<"AGENT"
#!/bin/sh
# Mounts the 9p share "run" and runs the agent run-pair.sh put there (scripts/vm2/guest-agent.sh).
mkdir -p /run/handoff-host
mountpoint -q /run/handoff-host || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 run /run/handoff-host || exit 1
exec bash /run/handoff-host/agent.sh
AGENT
chmod 755 "$1/usr/local/sbin/handoff-vm-agent"' \
    --customize-hook='cat >"$1/usr/local/sbin/handoff-hci-attach" <<"ATTACH"
#!/bin/sh
# The shared emulated radio as this machine'"'"'s HCI controller: over the virtio-serial port org.handoff.hci when
# the VM has one (run-pair.sh'"'"'s default), through /dev/vhci (handoff-hci-bridge); else over the serial line ttyS1
# with btattach (run-pair.sh --hci-line uart).
for dir in /sys/class/virtio-ports/*; do
    [ "$(cat "$dir/name" 2>/dev/null)" = org.handoff.hci ] && exec /usr/local/sbin/handoff-hci-bridge "/dev/${dir##*/}"
done
exec /usr/bin/btattach -B /dev/ttyS1 -P h4 -S 1000000
ATTACH
chmod 755 "$1/usr/local/sbin/handoff-hci-attach"' \
    --customize-hook="install -m 755 $tmp/hci-bridge \"\$1/usr/local/sbin/handoff-hci-bridge\"" \
    --customize-hook='cat >"$1/etc/systemd/system/handoff-hci.service" <<UNIT
[Unit]
Description=Attach the shared emulated LE radio (virtio-serial port, or serial line ttyS1) as an HCI controller
Before=bluetooth.service
After=dev-ttyS1.device systemd-modules-load.service
[Service]
Type=simple
ExecStart=/usr/local/sbin/handoff-hci-attach
Restart=on-failure
[Install]
WantedBy=multi-user.target
UNIT' \
    --customize-hook='cat >"$1/etc/systemd/system/handoff-agent.service" <<UNIT
[Unit]
Description=Run the commands the host leaves in the 9p share "run" (test VM only)
After=local-fs.target
[Service]
Type=simple
ExecStart=/usr/local/sbin/handoff-vm-agent
Restart=always
[Install]
WantedBy=multi-user.target
UNIT' \
    --customize-hook='chroot "$1" systemctl enable handoff-hci.service handoff-agent.service bluetooth.service' \
    --customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer systemd-timesyncd.service getty@tty1.service serial-getty@ttyS0.service serial-getty@ttyS1.service 2>/dev/null || true' \
    --customize-hook='printf "9p\n9pnet\n9pnet_virtio\nhci_uart\nhci_vhci\nvirtio_console\n" >"$1/etc/modules-load.d/handoff-vm.conf"' \
    --customize-hook='printf "virtio_blk\nvirtio_pci\next4\n9p\n9pnet_virtio\n" >>"$1/etc/initramfs-tools/modules"; chroot "$1" update-initramfs -u -k all' \
    "$release" "$root" "deb $mirror $release main" "deb $mirror $release-updates main" \
    "deb ${mirror%/debian}/debian-security $release-security main" >"$tmp/mmdebstrap.log" 2>&1 \
    || { tail -n 40 "$tmp/mmdebstrap.log" >&2; fail "mmdebstrap $release failed (log above)"; }

kimg=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n1)
kver=${kimg##*/vmlinuz-}
[[ -f "$root/boot/initrd.img-$kver" ]] || fail "no initrd for $kver in the image"
cp "$kimg" "$out/vmlinuz.new"
cp "$root/boot/initrd.img-$kver" "$out/initrd.img.new"

# ext4 from the directory: 1.5 GiB sparse, room for the .deb, logs and state; converted to qcow2 as the backing file.
truncate -s 1536M "$tmp/root.ext4"
mkfs.ext4 -q -L handoff-root -d "$root" "$tmp/root.ext4" || fail "mkfs.ext4 -d failed"
qemu-img convert -O qcow2 "$tmp/root.ext4" "$out/root.qcow2.new"

{
    echo "release=$release"
    echo "mirror=$mirror"
    echo "kernel=$kver"
    echo "bluez=$(chroot "$root" dpkg-query -W -f '${Version}' bluez)"
    echo "systemd=$(chroot "$root" dpkg-query -W -f '${Version}' systemd)"
    echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) in $(($(date +%s) - start)) s"
    echo "packages:"
    chroot "$root" dpkg-query -W -f '  ${Package} ${Version}\n'
} >"$out/manifest.new"
for f in vmlinuz initrd.img root.qcow2 manifest; do mv "$out/$f.new" "$out/$f"; done
echo "$key" >"$out/key"
echo "build-image: $release ready in $out ($(($(date +%s) - start)) s): $(sed -n '3,5p' "$out/manifest" | tr '\n' ' ')" >&2
