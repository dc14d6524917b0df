#!/usr/bin/env bash
# Both virtual controllers are registered by bluetoothd as hci0 and hci1, powered, LE-capable, with distinct
# addresses, and bluetoothd runs the ExchangeMTU this scenario asked for.
source "$(dirname "$0")/lib.sh"

for a in hci0 hci1; do
    powered "$a" || fail "$a is not powered"
    prop "/org/bluez/$a" org.bluez.LEAdvertisingManager1 SupportedInstances >/dev/null \
        || fail "$a has no LEAdvertisingManager1 (not LE-capable?)"
done
a0=$(adapter_address hci0) a1=$(adapter_address hci1)
[[ -n "$a0" && "$a0" != "$a1" ]] || fail "adapters have no distinct addresses: '$a0' '$a1'"
note "hci0 $a0, hci1 $a1; $(guest-bluez.sh status | head -n1)"
note "SupportedInstances hci0: $(prop /org/bluez/hci0 org.bluez.LEAdvertisingManager1 SupportedInstances)"
note "SupportedCapabilities hci0: $(prop /org/bluez/hci0 org.bluez.LEAdvertisingManager1 SupportedCapabilities)"
bluetoothctl list >&2
