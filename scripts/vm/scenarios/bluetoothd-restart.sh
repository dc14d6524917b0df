#!/usr/bin/env bash
# bluetoothd killed with SIGKILL (a crash) and started again: org.bluez gets a new owner and both adapters come
# back powered. Prints how long the way back took (what a client waiting on NameOwnerChanged sees).
source "$(dirname "$0")/lib.sh"

owner() { busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s org.bluez; }
before=$(owner) || fail "org.bluez has no owner before the restart"
start=$(date +%s%N)
guest-bluez.sh restart-bluetoothd --signal KILL || fail "bluetoothd did not come back"
took=$((($(date +%s%N) - start) / 1000000))
after=$(owner) || fail "org.bluez has no owner after the restart"
[[ "$before" != "$after" ]] || fail "org.bluez owner unchanged ($before): bluetoothd was not restarted"
powered hci0 && powered hci1 || fail "adapters not powered after the restart"
note "org.bluez owner $before -> $after; kill to both adapters powered: $took ms"
