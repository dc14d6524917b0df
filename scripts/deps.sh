#!/usr/bin/env bash
# Installs what a tier needs, and only what is missing. Idempotent: a second run changes nothing.
#
#   scripts/deps.sh build   Swift toolchain check, C headers (libdbus, libsodium, libbluetooth)
#   scripts/deps.sh test    build + dbus-daemon and clients, bluezoo, the VM tier (qemu, kernel, BlueZ),
#                           the fast lane's namespaces (iproute2; nftables where the kernel has no sch_netem)
#   scripts/deps.sh bench   test + dbus-python, a C compiler and iperf3 (bench-lane's baseline)
#   scripts/deps.sh deb     build + what makes and checks the Debian package (dpkg-dev, fakeroot, lintian)
#
# apt-get runs only when a package is absent (and then `apt-get update` once first). Python tools live in
# .venv at the repository root, built from /usr/bin/python3 and reinstalled only when
# scripts/requirements.txt changes.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
tier=${1:-test}

build_packages=(pkg-config libdbus-1-dev libsodium-dev libbluetooth-dev)
test_packages=(dbus dbus-bin systemd libglib2.0-bin python3 python3-venv python3-dbus zsh groff-base
    bluez bluez-test-tools qemu-system-x86 linux-image-amd64 busybox-static kmod procps
    wl-clipboard xclip xvfb xauth sway xdg-utils git python3-jeepney mpv mpv-mpris
    gcc libsystemd-dev libplist-dev jq chromium chromium-driver neovim iproute2 nftables)
bench_packages=(gcc iperf3)
deb_packages=(dpkg-dev fakeroot lintian)

case "$tier" in
    build) packages=("${build_packages[@]}") ;;
    test) packages=("${build_packages[@]}" "${test_packages[@]}") ;;
    bench) packages=("${build_packages[@]}" "${test_packages[@]}" "${bench_packages[@]}") ;;
    deb) packages=("${build_packages[@]}" "${deb_packages[@]}") ;;
    *) echo "deps.sh: unknown tier '$tier' (build, test, bench or deb)" >&2; exit 2 ;;
esac

say() { printf 'deps: %s\n' "$*"; }

if ! command -v swift >/dev/null 2>&1; then
    echo "deps: no 'swift' on PATH. Install the Swift 6.x toolchain for Linux (see README.md)." >&2
    exit 1
fi

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
    sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo"
    say "installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ "$tier" != build && "$tier" != deb ]]; then
    venv="$here/.venv"
    stamp="$venv/.requirements.sha256"
    want=$(sha256sum "$here/scripts/requirements.txt" | cut -d' ' -f1)
    if [[ ! -x "$venv/bin/python" ]]; then
        say "creating $venv"
        /usr/bin/python3 -m venv --system-site-packages "$venv"
    fi
    if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
        say "installing Python tools into .venv"
        "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/scripts/requirements.txt"
        echo "$want" >"$stamp"
    fi
fi
say "$tier tier ready"
