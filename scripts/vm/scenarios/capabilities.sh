#!/usr/bin/env bash
# With bluetoothd -E (run with @experimental=1), LEAdvertisingManager1.SupportedCapabilities reports MaxAdvLen
# (31 on btvirt's legacy-advertising controllers); without -E, BlueZ 5.66 does not export the property.
source "$(dirname "$0")/lib.sh"

caps=$(prop /org/bluez/hci0 org.bluez.LEAdvertisingManager1 SupportedCapabilities) \
    || fail "no SupportedCapabilities (is bluetoothd running with -E?)"
note "SupportedCapabilities: $caps"
grep -q '"MaxAdvLen" y [0-9]' <<<"$caps" || fail "SupportedCapabilities has no MaxAdvLen"
