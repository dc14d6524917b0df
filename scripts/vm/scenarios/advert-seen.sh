#!/usr/bin/env bash
# An LE advertisement (not discoverable, as handoff's is) with manufacturer data and service data, registered
# on hci0 through bluetoothctl's advertise menu (LEAdvertisingManager1.RegisterAdvertisement), shows up on hci1
# as a Device1 with that ManufacturerData and ServiceData once hci1 scans with SetDiscoveryFilter(Transport=le)
# (le-discover.py; bluetoothctl 5.66 `scan le` starts an unfiltered discovery, which drops non-discoverable
# advertisers).
#
#   advert-seen.sh                 expects hci0's public address (Privacy off)
#   advert-seen.sh --private       expects a resolvable private address instead (run with @privacy=device)
source "$(dirname "$0")/lib.sh"

private=0
[[ "${1:-}" == --private ]] && private=1
a0=$(adapter_address hci0)

ctl_start adv
ctl adv "select $a0"
ctl adv "menu advertise"
ctl adv "manufacturer 0xffff 0x12 0x34 0x56"
ctl adv "service 0xfe2c 0x01 0x02"
ctl adv "discoverable off"
ctl adv "back"
ctl adv "advertise peripheral"
wait_until 20 bash -c "busctl --system get-property org.bluez /org/bluez/hci0 org.bluez.LEAdvertisingManager1 \
    ActiveInstances | grep -qx 'y 1'" || fail "advertisement not registered on hci0 (ActiveInstances != 1)"
note "advertisement registered on hci0 ($a0)"

"$(dirname "$0")/le-discover.py" hci1 60 4 >"$SCENARIO_TMP/discover.log" 2>&1 &
discover=$!
trap 'kill $discover 2>/dev/null; wait $discover; cat "$SCENARIO_TMP/discover.log" >&2; scenario_cleanup' EXIT

# The Device1 under hci1 whose ManufacturerData is ours (its path depends on the address hci0 advertises with).
ours() {
    local d
    for d in $(busctl --system tree --list org.bluez | grep -E '^/org/bluez/hci1/dev_[0-9A-F_]+$'); do
        busctl --system get-property org.bluez "$d" org.bluez.Device1 ManufacturerData 2>/dev/null \
            | grep -q '65535 ay 3 18 52 86' && { echo "$d"; return 0; }
    done
    return 1
}
wait_until 30 ours || fail "hci1 never saw a device with ManufacturerData 0xffff 12 34 56"
dev=$(ours)
note "hci1 sees $dev: $(prop "$dev" org.bluez.Device1 ManufacturerData)"
wait_until 10 bash -c "busctl --system get-property org.bluez $dev org.bluez.Device1 ServiceData \
    | grep -qi '0000fe2c-0000-1000-8000-00805f9b34fb\" ay 2 1 2'" || fail "ServiceData fe2c 01 02 not seen"
note "ServiceData: $(prop "$dev" org.bluez.Device1 ServiceData)"
address=$(prop "$dev" org.bluez.Device1 Address | sed -e 's/^s "//' -e 's/"$//')
type=$(prop "$dev" org.bluez.Device1 AddressType)
note "Address $address, AddressType $type, RSSI $(prop "$dev" org.bluez.Device1 RSSI)"
if ((private)); then
    [[ "$type" == 's "random"' && "$address" != "$a0" ]] || fail "expected a random (private) address, got $address $type"
    # A resolvable private address has its two top bits 01: first octet 0x40..0x7F.
    ((0x${address:0:2} >= 0x40 && 0x${address:0:2} <= 0x7f)) || fail "$address is not a resolvable private address"
else
    [[ "$address" == "$a0" && "$type" == 's "public"' ]] || fail "expected hci0's public $a0, got $address $type"
fi
