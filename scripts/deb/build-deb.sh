#!/usr/bin/env bash
# `make deb`: builds handoff_VERSION-1_amd64.deb, the package a Debian 12 or 13 user installs with
# `apt-get install ./handoff_VERSION-1_amd64.deb`.
#
#   scripts/deb/build-deb.sh [--out DIR]     (default: the repository root)
#
# What is inside, in Debian's places (Docs/setup.md, "Installing the package"):
#   /usr/bin/handoff                                      the CLI
#   /usr/libexec/handoffd                                 the daemon (started by systemd or D-Bus activation)
#   /usr/lib/systemd/system/handoffd.service              the unit (scripts/systemd/handoffd.service)
#   /usr/share/dbus-1/system.d/org.handoff.Handoff1.conf  the bus policy (packages' place since dbus 1.10)
#   /usr/share/dbus-1/system-services/org.handoff.Handoff1.service   D-Bus activation, through systemd
#   /usr/share/dbus-1/interfaces/org.handoff.Handoff1.xml  the API's introspection, as published (it only grows)
#   /usr/bin/handoff-media, /usr/lib/systemd/user/handoff-media.service   the MPRIS bridge (Python, opt-in:
#                                                         systemctl --user enable --now handoff-media)
#   /usr/lib/python3/dist-packages/handoff_client/       the Python client library the bridge is written on
#   /usr/share/man/man1/handoff.1.gz                      `handoff manual`
#   /usr/share/man/man8/handoffd.8.gz                     `handoffd --help`, as a page (scripts/deb/daemon-manual.sh)
#   /usr/share/bash-completion/completions/handoff, /usr/share/zsh/vendor-completions/_handoff
#   /usr/share/doc/handoff/                               copyright, changelog, the API and usage docs
#   /usr/libexec/handoff/browser-host                     the browser extension's native messaging host (a wrapper)
#   /etc/chromium/native-messaging-hosts/org.handoff.browser.json   its manifest for Chromium (a conffile)
#   /usr/lib/mozilla/native-messaging-hosts/org.handoff.browser.json   its manifest for Firefox
#   /usr/share/handoff/browser-extension/                 the extension, to load unpacked (Docs/apps.md)
#   /usr/share/nvim/site/pack/handoff/opt/handoff/        the Neovim plugin, for `:packadd handoff` (Docs/apps.md)
# Both programs are built with the Swift runtime and Foundation linked statically (--static-swift-stdlib), so at
# run time they need only Debian's own libraries; Depends: comes from dpkg-shlibdeps on the built binaries, plus
# bluez and dbus. The maintainer scripts (scripts/deb/postinst, prerm, postrm) reload systemd and the bus
# policy, enable and (re)start the unit, stop it on removal, and on purge remove /var/lib/handoff.
set -euo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here
while (($#)); do
    case "$1" in
        --out) out=${2:?--out needs a folder}; shift 2 ;;
        *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
for tool in dpkg-deb dpkg-shlibdeps fakeroot; do
    command -v "$tool" >/dev/null || { echo "build-deb: '$tool' is missing; run scripts/deps.sh deb" >&2; exit 1; }
done

cd "$here"
version=$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/handoff/RootCommand.swift)
[[ -n "$version" ]] || { echo "build-deb: no version in Sources/handoff/RootCommand.swift" >&2; exit 1; }
daemon_version=$(sed -n 's/^ *public static let version = "\(.*\)"$/\1/p' Sources/HandoffDaemon/DaemonConfiguration.swift)
[[ "$daemon_version" == "$version" ]] \
    || { echo "build-deb: the CLI says $version, the daemon ${daemon_version:-nothing}" >&2; exit 1; }
debversion=$version-1
arch=$(dpkg --print-architecture)
scratch=.build/deb-build
built=$scratch/release

echo "build-deb: building handoffd and handoff $version (release, -Osize, static Swift runtime)" >&2
for product in handoffd handoff; do
    swift build -c release --static-swift-stdlib -Xswiftc -Osize -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now \
        --scratch-path "$scratch" --product "$product" >&2
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/handoff-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/root
install -d "$root/DEBIAN" "$root/usr/bin" "$root/usr/libexec" "$root/usr/lib/systemd/system" \
    "$root/usr/share/dbus-1/system.d" "$root/usr/share/dbus-1/system-services" "$root/usr/share/man/man1" \
    "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/doc/handoff" "$root/usr/share/dbus-1/interfaces" "$root/usr/lib/systemd/user" \
    "$root/usr/lib/python3/dist-packages/handoff_client"
# Stripped as dh_strip does: no debug symbols, no .comment or .note sections.
install -m 0755 "$built/handoff" "$root/usr/bin/handoff"
install -m 0755 "$built/handoffd" "$root/usr/libexec/handoffd"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/handoff" \
    "$root/usr/libexec/handoffd"
sed 's|@HANDOFFD@|/usr/libexec/handoffd|g; s|@DOCDIR@|/usr/share/doc/handoff|g' scripts/systemd/handoffd.service \
    >"$root/usr/lib/systemd/system/handoffd.service"
sed 's|@HANDOFFD@|/usr/libexec/handoffd|g' scripts/systemd/org.handoff.Handoff1.service \
    >"$root/usr/share/dbus-1/system-services/org.handoff.Handoff1.service"
install -m 0644 dbus-policy/org.handoff.Handoff1.conf "$root/usr/share/dbus-1/system.d/"
install -m 0644 dbus-policy/interfaces/org.handoff.Handoff1.xml "$root/usr/share/dbus-1/interfaces/"
install -m 0644 clients/python/handoff_client/*.py clients/python/handoff_client/py.typed \
    "$root/usr/lib/python3/dist-packages/handoff_client/"
install -m 0755 scripts/handoff-media "$root/usr/bin/handoff-media"
sed 's|@HANDOFF_MEDIA@|/usr/bin/handoff-media|g; s|@DOCDIR@|/usr/share/doc/handoff|g' scripts/systemd/handoff-media.service \
    >"$root/usr/lib/systemd/user/handoff-media.service"
"$built/handoff" manual | gzip -9n >"$root/usr/share/man/man1/handoff.1.gz"
gzip -9nc scripts/deb/handoff-media.1 >"$root/usr/share/man/man1/handoff-media.1.gz"
install -d "$root/usr/share/man/man8"
scripts/deb/daemon-manual.sh "$built/handoffd" "$version" | gzip -9n >"$root/usr/share/man/man8/handoffd.8.gz"
"$built/handoff" completions bash >"$root/usr/share/bash-completion/completions/handoff"
"$built/handoff" completions zsh >"$root/usr/share/zsh/vendor-completions/_handoff"
install -m 0644 Docs/dbus-api.md Docs/usage.md Docs/setup.md Docs/privacy.md Docs/apps.md "$root/usr/share/doc/handoff/"
install -m 0644 scripts/deb/copyright "$root/usr/share/doc/handoff/copyright"
sed "s/@VERSION@/$debversion/; s/@DATE@/$(date -R -d @"$(git log -1 --format=%ct 2>/dev/null || date +%s)")/" \
    scripts/deb/changelog | gzip -9n >"$root/usr/share/doc/handoff/changelog.Debian.gz"
# The integrations (integrations/, Docs/apps.md): the browser's native host, its manifests, the extension to load,
# and the Neovim plugin as an optional package (loaded only by those who ask: it runs `handoff` as they edit).
install -d "$root/usr/libexec/handoff" "$root/etc/chromium/native-messaging-hosts" \
    "$root/usr/lib/mozilla/native-messaging-hosts" "$root/usr/share/handoff/browser-extension"
sed 's|@HANDOFF@|/usr/bin/handoff|g' integrations/browser/native-host/handoff-browser-host \
    >"$root/usr/libexec/handoff/browser-host"
chmod 0755 "$root/usr/libexec/handoff/browser-host"
for browser in chromium mozilla; do
    folder=$([[ $browser == chromium ]] && echo etc/chromium || echo usr/lib/mozilla)
    source=$([[ $browser == chromium ]] && echo chromium || echo firefox)
    sed 's|@HOST@|/usr/libexec/handoff/browser-host|g' "integrations/browser/native-host/$source/org.handoff.browser.json" \
        >"$root/$folder/native-messaging-hosts/org.handoff.browser.json"
    chmod 0644 "$root/$folder/native-messaging-hosts/org.handoff.browser.json"
done
install -m 0644 integrations/browser/extension/manifest.json integrations/browser/extension/background.js \
    "$root/usr/share/handoff/browser-extension/"
plugin=$root/usr/share/nvim/site/pack/handoff/opt/handoff
install -d "$plugin/plugin" "$plugin/lua/handoff"
install -m 0644 integrations/nvim/plugin/handoff.lua "$plugin/plugin/"
install -m 0644 integrations/nvim/lua/handoff/init.lua "$plugin/lua/handoff/"
chmod 0644 "$root"/usr/lib/systemd/system/* "$root"/usr/lib/systemd/user/* "$root"/usr/share/dbus-1/system-services/* \
    "$root"/usr/share/bash-completion/completions/* "$root"/usr/share/zsh/vendor-completions/*

# Depends: what the binaries link (dpkg-shlibdeps reads a debian/control of its own), then what they talk to.
mkdir -p "$stage/shlibs/debian"
printf 'Source: handoff\n\nPackage: handoff\nArchitecture: any\n' >"$stage/shlibs/debian/control"
shlibs=$(cd "$stage/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/handoff" "$root/usr/libexec/handoffd" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
[[ -n "$shlibs" ]] || { echo "build-deb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -k -s --exclude=DEBIAN "$root" | cut -f1)
sed "s/@VERSION@/$debversion/; s/@ARCH@/$arch/; s/@DEPENDS@/$shlibs, bluez (>= 5.66), dbus | dbus-system-bus, python3:any (>= 3.9)/; s/@SIZE@/$size/" \
    scripts/deb/control >"$root/DEBIAN/control"
for script in postinst prerm postrm; do
    install -m 0755 "scripts/deb/$script" "$root/DEBIAN/$script"
done
echo /etc/chromium/native-messaging-hosts/org.handoff.browser.json >"$root/DEBIAN/conffiles"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"

mkdir -p "$out"
deb=$out/handoff_${debversion}_${arch}.deb
fakeroot dpkg-deb --build -Zxz --root-owner-group "$root" "$deb" >&2
echo "$deb"
