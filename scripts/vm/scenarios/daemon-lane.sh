#!/usr/bin/env bash
# The fast lane with BLE real (issue 28): two handoffd over the VM's bluetoothd (btvirt's hci0 and hci1), each in a
# network namespace of its own, the namespaces joined by a veth pair made here (scripts/netns-pair.sh). A 100 MiB
# share with `handoff share --wait` starts on Bluetooth, moves to TCP over the veth, and is taken intact, each
# daemon's peak resident memory under 64 MiB (scripts/netns-daemons.sh says what is checked). The Bluetooth leg
# is GATT: the kernel makes Bluetooth sockets only in the initial network namespace, so the daemons' own L2CAP
# channels are refused in theirs, and bluetoothd (in the initial one) carries GATT for them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD_PATH=${BUILD_PATH:-.build/debug}
# shellcheck source=scripts/netns-pair.sh
. scripts/netns-pair.sh
# shellcheck source=scripts/netns-daemons.sh
. scripts/netns-daemons.sh
netns_pair vm 10.28.2 daemon-lane
DAEMONS_BLUEZ=${DAEMONS_BLUEZ:-system} DAEMONS_SIZE=${DAEMONS_SIZE:-$((100 << 20))} daemons_scenario
