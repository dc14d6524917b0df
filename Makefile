# handoff: the two commands a newcomer types are `make demo` and `make test`.
# Every target installs what it is missing first (scripts/deps.sh is idempotent).

SWIFT ?= swift
CONFIG ?= debug
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: deb lint-deb test-deb test-installed all build test test-unit test-python test-lane test-vm test-matrix test-many vm2-images test-tsan test-fuzz fuzz bench bench-ble bench-cost bench-e2e bench-lane demo deps clean help install uninstall soak

all: build

help:
	@echo "make demo      two machines in a VM: note edit on one, continue on the other"
	@echo "make test      every test tier: unit and integration (private dbus-daemon, bluezoo), TSan, the VM, the package"
	@echo "make test-unit the Swift test suites, then the demo's flow on bluezoo (no VM)"
	@echo "make test-python the Python client and handoff-media against the real daemons, mpv (part of make test)"
	@echo "make test-vm   the real-BlueZ tier only: bluetoothd and two virtual controllers in qemu"
	@echo "make test-lane the fast lane on real sockets: two network namespaces and a veth pair, engines and two real daemons (root, about 30 s)"
	@echo "make test-matrix two Debian VMs (12, 13, mixed) on one emulated radio, the .deb installed (DEB=path)"
	@echo "make test-many  one laptop VM and eight receiver VMs on one radio: eight continues at once, strangers holding on"
	@echo "make vm2-images  build the Debian 12 and 13 images of test-matrix (mmdebstrap, cached in .vm/images)"
	@echo "make test-tsan the D-Bus, BlueZ, radio, HandoffKit and daemon suites under ThreadSanitizer"
	@echo "make test-deb  the Debian package built and checked with lintian (part of make test)"
	@echo "make test-installed the .deb on two Debian 12 VMs, then two Debian 13 VMs: the installed flow; on 13 also the two machines connecting to each other at once (part of make test)"
	@echo "make test-fuzz every libFuzzer target for a few seconds (ASan, LeakSanitizer), part of make test"
	@echo "make fuzz      every libFuzzer target for 10M runs (FUZZ_RUNS, FUZZ_SECONDS, FUZZ_JOBS; Fuzz/README.md)"
	@echo "make soak      500 continues in a row between two daemons, 0 B to 64 KiB: intact, memory and fds flat"
	@echo "make bench     benchmarks; results land in bench/results/"
	@echo "make bench-ble BLE continue in the VM: GATT vs L2CAP vs the l2test ceiling, 3 KB to 1 MiB (about 25 min)"
	@echo "make bench-cost handoffd's cost in a crowded room and at rest, in the VM (about 20 min)"
	@echo "make bench-e2e  note edit -> watch line -> continue --print, 20 runs in the VM, p50 and p95 (about 5 min)"
	@echo "make bench-lane 100 MiB over the fast lane vs iperf3 in two namespaces, raw and Wi-Fi-like, and BLE (root)"
	@echo "make build     swift build"
	@echo "make install   handoffd, handoff, handoff-media, the D-Bus policy and interface XML, the units (PREFIX=/usr/local, DESTDIR)"
	@echo "make deb       the Debian package handoff_VERSION-1_ARCH.deb (lint-deb: and lintian on it)"

deps:
	@scripts/deps.sh test

build:
	@scripts/deps.sh build
	$(SWIFT) build -c $(CONFIG)

# The soak (SoakTests) measures the resident memory, descriptors and threads of its own process, so it runs in a
# process of its own, after the rest: beside the other suites, their allocations would count as its growth.
# The suites run one at a time (--no-parallel): many start real daemons, dbus-daemons, Xvfb, sway and killed
# processes, and on two cores, all at once, a daemon's reply could take longer than a client's 10 s call timeout.
# Docs/api.md's listing of HandoffKit's public API is checked against the compiler's (scripts/api-listing.sh, <1 s).
# Last, the demo's own flow through the real binaries on bluezoo (a few seconds): `make demo`'s script stays working
# on the host too, not only in the VM.
test-unit:
	@scripts/deps.sh test
	$(SWIFT) build --build-tests
	scripts/api-listing.sh --check
	$(SWIFT) test --skip-build --no-parallel --skip SoakTests
	$(SWIFT) test --skip-build --filter SoakTests
	scripts/demo.sh --bluezoo

test-vm:
	@scripts/deps.sh test
	scripts/vm-test.sh

# Every tier, in this order, each timed (scripts/test-tiers.sh: seconds per tier at the end and in
# .build/test-times.txt; CI allows 90 minutes and make test keeps under 70).
TEST_TIERS = test-unit test-lane test-python test-fuzz test-tsan test-vm test-deb test-installed
test:
	scripts/test-tiers.sh "$(MAKE)" $(TEST_TIERS)

# The Python client (clients/python): mypy --strict, then its tests against the real handoffd, two daemons paired
# over bluezoo, and the MPRIS bridge with the real mpv and mpv-mpris (about 20 s).
test-python:
	@scripts/deps.sh test
	$(SWIFT) build --product handoffd
	$(SWIFT) build --product handoff
	cd clients/python && mypy --strict handoff_client
	cd clients/python && python -W ignore::ResourceWarning -m unittest discover -s tests -t . -v

# The fast lane on real sockets (scripts/netns-fastlane.sh, issue 28): two network namespaces joined by a veth pair
# that the script makes and removes, nothing routed out. The upgrade, hostile connections to the offered port, the
# veth down mid-transfer and back, a Wi-Fi-like link, and two real handoffd (one per namespace, bluezoo for BlueZ)
# sharing 192 MiB with bounded memory. Needs root (ip netns, tc), as CI has; without it, or without network
# namespaces, it fails: it never skips.
test-lane:
	@scripts/deps.sh test
	$(SWIFT) build --product lane-netns
	$(SWIFT) build --product handoffd
	$(SWIFT) build --product handoff
	scripts/netns-fastlane.sh --build-path "$$($(SWIFT) build --show-bin-path)"

# The package as a user gets it: built (static Swift runtime, release), then lintian, which fails on any tag not
# accepted with its reason in scripts/deb/lintian-accepted.
test-deb: lint-deb

# Two machines that are really two (scripts/vm2/, Docs/bluez.md "Tier 3"): each its own qemu VM with systemd, a
# stock Debian root and the .deb installed with apt-get, on one emulated LE radio (Bumble). DEB= the package (default:
# the newest handoff_*_amd64.deb at the root or in .build/deb; none is an error).
vm2-images:
	scripts/vm2/build-image.sh bookworm
	scripts/vm2/build-image.sh trixie

test-matrix: vm2-images
	scripts/vm2/test-matrix.sh $(if $(DEB),--deb $(DEB))

# One source and many receivers, each machine its own VM on the one radio (scripts/vm2/flow-many.sh): the laptop
# pairs with every other machine, all of them continue one note at the same moment, then all but one hold links
# and channels to the laptop as strangers while the last continues. MANY_MACHINES VMs in all (default 9: the laptop
# and eight receivers), 512 MiB each, Debian 12.
MANY_MACHINES ?= 9
test-many: vm2-images
	scripts/vm2/run-pair.sh --release bookworm --machines $(MANY_MACHINES) --mem 512 --timeout 5400 $(if $(DEB),--deb $(DEB)) -- scripts/vm2/flow-many.sh

# The installed flow on two machines that are really two (scripts/vm2/flow-note.sh), on Debian 12 and on Debian 13:
# the package from `make deb` installed with apt-get in each VM, the daemon started by its unit, pair, note edit,
# watch, continue over L2CAP, a second user refused. On Debian 13 the same boot then runs the fast lane as installed
# (flow-lane.sh, the machines on a LAN too: a 600 KiB note and 16 MiB over TCP, then, the desktop off the LAN, over
# L2CAP) and two rounds of the two machines connecting to each other at once (flow-cross.sh), nothing restarted
# (one boot and install fewer: about 2.5 minutes of CI). Part of make test; test-matrix adds the mixed pair and the
# radio checks.
test-installed: deb vm2-images
	HANDOFF_MATRIX_FLOWS=flow-note scripts/vm2/test-matrix.sh bookworm
	HANDOFF_MATRIX_FLOWS="flow-note+flow-lane+flow-cross" HANDOFF_CROSS_ROUNDS=2 HANDOFF_LANE_BYTES=16777216 \
		scripts/vm2/test-matrix.sh trixie

# The suites where our own concurrency lives (the D-Bus layer's dispatch, the BlueZ mirror and radio on bluezoo,
# the engine's actors, the daemon, handoffd's executor, the L2CAP sockets' poll threads) again under
# ThreadSanitizer, in a second build (.build/tsan, about a minute on two cores, and about two for the suites). Any
# report fails the run (TSan's exit code 66).
TSAN_SUITES = DBusTests|BlueZTests|HandoffBlueZTests|HandoffKitTests|HandoffDaemonTests|HandoffSharedTests|L2CAPTests|HandoffLaneTests
test-tsan:
	@scripts/deps.sh test
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan --no-parallel --filter '$(TSAN_SUITES)' --skip SoakTests
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build/tsan --filter SoakTests

# libFuzzer targets for every decoder of outside input (Fuzz/README.md), in their own build (.build/fuzz).
test-fuzz:
	@scripts/deps.sh test
	FUZZ_SECONDS=$${FUZZ_SECONDS:-5} Fuzz/run.sh run

fuzz:
	@scripts/deps.sh test
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} Fuzz/run.sh run
# Issue 14 section 4, the long form: `make test` runs the same suite with 50 continues.
SOAK_CONTINUES ?= 500
soak:
	@scripts/deps.sh test
	$(SWIFT) build --build-tests
	HANDOFF_SOAK_CONTINUES=$(SOAK_CONTINUES) $(SWIFT) test --skip-build --filter SoakTests

bench:
	@scripts/deps.sh bench
	bench/run.sh

bench-ble:
	@scripts/deps.sh test
	bench/ble-transport.sh

bench-cost:
	@scripts/deps.sh test
	bench/crowded-room.sh
	scripts/vm-test.sh --keep-logs --list bench/discovery-latency.list

bench-e2e:
	@scripts/deps.sh test
	bench/end-to-end.sh

bench-lane:
	@scripts/deps.sh bench
	bench/lane.sh

demo:
	@scripts/deps.sh test
	scripts/demo.sh

# The Debian package (scripts/deb/build-deb.sh): handoff_VERSION-1_ARCH.deb at the repository root, for
# `apt-get install ./handoff_*.deb` on Debian 12 or 13. lint-deb runs lintian on it (Docs/setup.md says what
# lintian still reports, and why).
deb:
	@scripts/deps.sh deb
	scripts/deb/build-deb.sh

lint-deb: deb
	scripts/deb/lint-deb.sh

# Installs for a real machine: binaries in $(PREFIX)/bin, the bus policy in /etc/dbus-1/system.d, the systemd
# unit and the D-Bus activation file (paths rewritten to $(PREFIX)), the API doc. DESTDIR is honoured.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
# Where python3 looks for modules under PREFIX (/usr/local/lib/python3.11/dist-packages on Debian 12).
PYTHONDIR ?= $(PREFIX)/$(shell /usr/bin/python3 -c 'import sys; print("lib/python%d.%d/dist-packages" % sys.version_info[:2])')
INSTALL_CONFIG ?= release
# Optimised for size: handoffd runs all day, and most of its resident memory is mapped code (Docs/performance.md,
# Memory: 20.2-20.3 MB with -O, 19.8-19.9 MB with -Osize). Its own scratch path keeps `swift build -c release`'s.
INSTALL_FLAGS ?= -Xswiftc -Osize
INSTALL_SCRATCH ?= .build/install
BUILT = $(INSTALL_SCRATCH)/$(INSTALL_CONFIG)
install:
	@scripts/deps.sh build
	$(SWIFT) build -c $(INSTALL_CONFIG) --scratch-path $(INSTALL_SCRATCH) $(INSTALL_FLAGS) --product handoffd
	$(SWIFT) build -c $(INSTALL_CONFIG) --scratch-path $(INSTALL_SCRATCH) $(INSTALL_FLAGS) --product handoff
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SYSCONFDIR)/dbus-1/system.d $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(PREFIX)/share/dbus-1/system-services $(DESTDIR)$(PREFIX)/share/doc/handoff \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 $(BUILT)/handoffd $(BUILT)/handoff $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 dbus-policy/org.handoff.Handoff1.conf $(DESTDIR)$(SYSCONFDIR)/dbus-1/system.d/
	install -d $(DESTDIR)$(PREFIX)/share/dbus-1/interfaces $(DESTDIR)$(PYTHONDIR)/handoff_client $(DESTDIR)$(USERUNITDIR)
	install -m 0644 dbus-policy/interfaces/org.handoff.Handoff1.xml $(DESTDIR)$(PREFIX)/share/dbus-1/interfaces/
	install -m 0644 clients/python/handoff_client/*.py clients/python/handoff_client/py.typed \
		$(DESTDIR)$(PYTHONDIR)/handoff_client/
	install -m 0755 scripts/handoff-media $(DESTDIR)$(PREFIX)/bin/handoff-media
	sed 's|@HANDOFF_MEDIA@|$(PREFIX)/bin/handoff-media|g; s|@DOCDIR@|$(PREFIX)/share/doc/handoff|g' \
		scripts/systemd/handoff-media.service > $(DESTDIR)$(USERUNITDIR)/handoff-media.service
	sed 's|@HANDOFFD@|$(PREFIX)/bin/handoffd|g; s|@DOCDIR@|$(PREFIX)/share/doc/handoff|g' scripts/systemd/handoffd.service \
		> $(DESTDIR)$(UNITDIR)/handoffd.service
	sed 's|@HANDOFFD@|$(PREFIX)/bin/handoffd|g' scripts/systemd/org.handoff.Handoff1.service \
		> $(DESTDIR)$(PREFIX)/share/dbus-1/system-services/org.handoff.Handoff1.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/handoffd.service \
		$(DESTDIR)$(PREFIX)/share/dbus-1/system-services/org.handoff.Handoff1.service
	install -m 0644 Docs/dbus-api.md Docs/usage.md Docs/apps.md $(DESTDIR)$(PREFIX)/share/doc/handoff/
	$(BUILT)/handoff completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/handoff
	$(BUILT)/handoff completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_handoff
	@echo "installed; now: systemctl daemon-reload && systemctl enable --now handoffd"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/handoffd $(DESTDIR)$(PREFIX)/bin/handoff \
		$(DESTDIR)$(SYSCONFDIR)/dbus-1/system.d/org.handoff.Handoff1.conf $(DESTDIR)$(UNITDIR)/handoffd.service \
		$(DESTDIR)$(PREFIX)/share/dbus-1/system-services/org.handoff.Handoff1.service \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/handoff $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_handoff \
		$(DESTDIR)$(PREFIX)/share/dbus-1/interfaces/org.handoff.Handoff1.xml $(DESTDIR)$(PREFIX)/bin/handoff-media \
		$(DESTDIR)$(USERUNITDIR)/handoff-media.service
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/handoff $(DESTDIR)$(PYTHONDIR)/handoff_client

clean:
	rm -rf .build .vm bench/results
