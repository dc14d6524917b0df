#!/usr/bin/env bash
# Issue 14 §2: the transfer service keeps its attribute handles across daemon restarts. Two processes, one after
# the other, each pair a new laptop (hci0) and desktop (hci1), with bluetoothd restarted between them on the same
# storage: hci1's cached table of hci0 must be the same in the second process as in the first (before the fix the
# handles followed a Swift dictionary's per-process order, so a daemon started again moved the request
# characteristic and left its peers' caches stale).
source "$(dirname "$0")/lib.sh"

cache=/var/lib/bluetooth/00:AA:01:01:00:01/cache/00:AA:01:00:00:00
request=6c1a0001-6e6f-4c8f-9d5e-68616e646f66
table() { grep -E '^[0-9a-f]{4}=' "$cache"; }
has_service() { grep -q "$request" "$cache" 2>/dev/null; }

# pair_and_read: one process pairs; the table is read while it runs (when it ends, the laptop's service leaves, and
# bluetoothd stores the still-connected desktop's cache without it after the Service Changed).
pair_and_read() {
    local pid table=""
    .build/debug/handoff-radio-scenarios radio-pairing >&2 &
    pid=$!
    wait_until 90 has_service && table=$(table)
    wait "$pid" || fail "the pairing of process $1 failed"
    [[ -n "$table" ]] || fail "hci1 cached no transfer service of hci0 in process $1"
    echo "$table"
}

rm -rf /var/lib/bluetooth/*
guest-bluez.sh restart-bluetoothd || fail "bluetoothd did not come back"
first=$(pair_and_read 1) || exit 1
guest-bluez.sh restart-bluetoothd || fail "bluetoothd did not come back"
second=$(pair_and_read 2) || exit 1
[[ "$first" == "$second" ]] || fail "the second process laid the service out differently: $(diff <(echo "$first") <(echo "$second") | tr '\n' ' ')"
note "the same table in both processes ($(echo "$first" | grep -ic "=2803:") characteristics): $(echo "$first" | grep -i "$request")"
