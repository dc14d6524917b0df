#!/usr/bin/env bash
# A stand-in for `make deb` until it exists: packs the built binaries (.build/debug by default) as a .deb that
# the two-machine VMs install with apt-get, the way they will install the real one. Prints the .deb's path.
#
#   scripts/vm2/stopgap-deb.sh [BUILD_DIR]
#
# Not for users: it carries the Swift runtime's shared libraries next to the binaries (/usr/lib/handoff, found
# through the binaries' $ORIGIN runpath) instead of linking them statically, and its unit is
# scripts/systemd/handoffd.service with two changes the VM needs: the binaries' path, and AF_BLUETOOTH added to
# RestrictAddressFamilies (without it the installed daemon cannot open an L2CAP socket: issue 24 §2).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$here/.build/debug}
cache=${HANDOFF_VM_CACHE:-$(dirname "$(git -C "$here" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$here/.git")")/.vm}
out=$cache/deb
for p in handoffd handoff; do [[ -x $bin/$p ]] || { echo "stopgap-deb: $bin/$p is not built (swift build)" >&2; exit 1; }; done
swiftlib=$(readelf -d "$bin/handoffd" | sed -n 's/.*runpath: \[\([^:]*\):.*/\1/p')
[[ -d $swiftlib ]] || { echo "stopgap-deb: the Swift runtime folder '$swiftlib' is missing" >&2; exit 1; }
version=0~vm2.$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo 0)
pkg=$(mktemp -d); trap 'rm -rf "$pkg"' EXIT
chmod 755 "$pkg"
install -d "$pkg/DEBIAN" "$pkg/usr/lib/handoff" "$pkg/usr/bin" "$pkg/lib/systemd/system" \
    "$pkg/usr/share/dbus-1/system.d" "$pkg/usr/share/dbus-1/system-services"
install -m 0755 "$bin/handoffd" "$bin/handoff" "$pkg/usr/lib/handoff/"
ln -s ../lib/handoff/handoffd "$pkg/usr/bin/handoffd"
ln -s ../lib/handoff/handoff "$pkg/usr/bin/handoff"
# Only the runtime libraries the binaries load.
ldd "$bin/handoffd" "$bin/handoff" | awk -v d="$swiftlib/" 'index($3, d) == 1 { print $3 }' | sort -u \
    | xargs -r install -m 0644 -t "$pkg/usr/lib/handoff/"
sed -e 's|/usr/local/bin/handoffd|/usr/bin/handoffd|' -e 's|^RestrictAddressFamilies=.*|RestrictAddressFamilies=AF_UNIX AF_BLUETOOTH|' \
    "$here/scripts/systemd/handoffd.service" >"$pkg/lib/systemd/system/handoffd.service"
install -m 0644 "$here/dbus-policy/org.handoff.Handoff1.conf" "$pkg/usr/share/dbus-1/system.d/"
sed 's|/usr/local/bin/handoffd|/usr/bin/handoffd|' "$here/scripts/systemd/org.handoff.Handoff1.service" \
    >"$pkg/usr/share/dbus-1/system-services/org.handoff.Handoff1.service"
cat >"$pkg/DEBIAN/control" <<CTL
Package: handoff
Version: $version
Architecture: amd64
Maintainer: handoff test VMs <nobody@localhost>
Depends: bluez, dbus, libdbus-1-3, libsodium23, libbluetooth3, libsystemd0, libstdc++6, libgcc-s1
Description: handoff (stop-gap package for the VM tier, not for users)
 Built by scripts/vm2/stopgap-deb.sh from $bin.
CTL
cat >"$pkg/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
    systemctl reload dbus || true
fi
SH
chmod 755 "$pkg/DEBIAN/postinst"
mkdir -p "$out"
rm -f "$out"/handoff_*_amd64.deb
deb=$out/handoff_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz -z1 --build "$pkg" "$deb" >/dev/null
echo "$deb"
