# handoff: the two commands a newcomer types are `make demo` and `make test`.
# Every target installs what it is missing first (scripts/deps.sh is idempotent).

SWIFT ?= swift
CONFIG ?= debug
export PATH := $(CURDIR)/.venv/bin:$(PATH)

.PHONY: all build test test-unit test-vm bench demo deps clean help

all: build

help:
	@echo "make demo      two machines in a VM: note edit on one, continue on the other"
	@echo "make test      every test tier: unit and integration (private dbus-daemon, bluezoo), then the VM"
	@echo "make test-unit the Swift test suites only (no VM)"
	@echo "make test-vm   the real-BlueZ tier only: bluetoothd and two virtual controllers in qemu"
	@echo "make bench     benchmarks; results land in bench/results/"
	@echo "make build     swift build"

deps:
	@scripts/deps.sh test

build:
	@scripts/deps.sh build
	$(SWIFT) build -c $(CONFIG)

test-unit:
	@scripts/deps.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test-vm:
	@scripts/deps.sh test
	scripts/vm-test.sh

test: test-unit test-vm

bench:
	@scripts/deps.sh bench
	bench/run.sh

demo:
	@scripts/deps.sh test
	scripts/demo.sh

clean:
	rm -rf .build .vm bench/results
