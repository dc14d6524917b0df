#!/usr/bin/env bash
# GATT over a real LE link between the two virtual controllers: bluetoothctl on hci0 registers a GATT
# application (service 0x1234, characteristic 0xabcd read/write) and a connectable, non-discoverable
# advertisement; hci1 discovers it (SetDiscoveryFilter Transport=le), Device1.Connect, waits for
# ServicesResolved, reads and writes the characteristic with busctl, checks the negotiated ATT MTU
# (GattCharacteristic1.MTU) equals the ExchangeMTU bluetoothd runs with, and disconnects.
source "$(dirname "$0")/lib.sh"

mtu=$(guest-bluez.sh status | sed -n 's/^settings (ExchangeMTU Privacy experimental): \([0-9]*\) .*/\1/p')
a0=$(adapter_address hci0)
dev=/org/bluez/hci1/dev_${a0//:/_}

ctl_start srv
ctl srv "select $a0"
ctl srv "menu gatt"
ctl srv "register-service 0x1234"
ctl srv "yes"
ctl srv "register-characteristic 0xabcd read,write"
ctl srv "0x11 0x22 0x33"
ctl srv "register-application"
ctl srv "back"
ctl srv "menu advertise"
ctl srv "manufacturer 0xffff 0x01"
ctl srv "discoverable off"
ctl srv "back"
ctl srv "advertise peripheral"
wait_until 20 bash -c "busctl --system get-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 UUIDs \
    | grep -qi 00001234-" || fail "GATT application not registered on hci0 (service 0x1234 not in UUIDs)"
wait_until 20 bash -c "busctl --system get-property org.bluez /org/bluez/hci0 org.bluez.LEAdvertisingManager1 \
    ActiveInstances | grep -qx 'y 1'" || fail "advertisement not registered on hci0"

"$(dirname "$0")/le-discover.py" hci1 60 4 >"$SCENARIO_TMP/discover.log" 2>&1 &
discover=$!
trap 'kill $discover 2>/dev/null; wait $discover; busctl --system call org.bluez $dev org.bluez.Device1 Disconnect \
    >/dev/null 2>&1; scenario_cleanup' EXIT
wait_until 30 busctl --system get-property org.bluez "$dev" org.bluez.Device1 Address || fail "hci1 never saw $a0"
kill "$discover"; wait "$discover" 2>/dev/null

start=$(date +%s%N)
connected=0
for attempt in 1 2 3; do
    if out=$(busctl --system --timeout=30 call org.bluez "$dev" org.bluez.Device1 Connect 2>&1); then
        connected=1
        break
    fi
    note "Connect attempt $attempt: $out"
    sleep 1
done
((connected)) || fail "Device1.Connect failed 3 times"
wait_until 30 bash -c "busctl --system get-property org.bluez $dev org.bluez.Device1 ServicesResolved \
    | grep -qx 'b true'" || fail "services never resolved"
note "connected and services resolved in $((($(date +%s%N) - start) / 1000000)) ms"

chr=""
for c in $(busctl --system tree --list org.bluez | grep -E "^$dev/service[0-9a-f]+/char[0-9a-f]+$"); do
    busctl --system get-property org.bluez "$c" org.bluez.GattCharacteristic1 UUID | grep -qi '"0000abcd-' \
        && chr=$c && break
done
[[ -n "$chr" ]] || fail "characteristic 0xabcd not found under $dev"
value=$(busctl --system call org.bluez "$chr" org.bluez.GattCharacteristic1 ReadValue 'a{sv}' 0) \
    || fail "ReadValue failed"
[[ "$value" == "ay 3 17 34 51" ]] || fail "ReadValue gave '$value', expected 'ay 3 17 34 51'"
busctl --system call org.bluez "$chr" org.bluez.GattCharacteristic1 WriteValue 'aya{sv}' 2 0x44 0x55 0 \
    || fail "WriteValue failed"
value=$(busctl --system call org.bluez "$chr" org.bluez.GattCharacteristic1 ReadValue 'a{sv}' 0)
[[ "$value" == "ay 2 68 85" ]] || fail "after WriteValue, ReadValue gave '$value', expected 'ay 2 68 85'"
got_mtu=$(prop "$chr" org.bluez.GattCharacteristic1 MTU | sed 's/^q //')
note "read/write ok; negotiated ATT MTU $got_mtu (ExchangeMTU $mtu)"
[[ "$got_mtu" == "$mtu" ]] || fail "negotiated MTU $got_mtu, expected $mtu"
busctl --system call org.bluez "$dev" org.bluez.Device1 Disconnect || fail "Disconnect failed"
wait_until 10 bash -c "busctl --system get-property org.bluez $dev org.bluez.Device1 Connected \
    | grep -qx 'b false'" || fail "still connected after Disconnect"
note "disconnected"
