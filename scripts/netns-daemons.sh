# Two real handoffd between two network namespaces (sourced; it uses $A, $B, $BUILD_PATH): laptop in namespace $A
# on hci0, desktop in $B on hci1, an API bus each (scripts/api-bus.sh). BlueZ is bluezoo on a private bus
# (scripts/bluezoo-bus.sh; the `daemons` scenario of scripts/netns-fastlane.sh), or with DAEMONS_BLUEZ=system the
# real bluetoothd on DBUS_SYSTEM_BUS_ADDRESS (the VM's `daemon-lane`, scripts/vm/scenarios/daemon-lane.sh). Unix
# sockets are files, so both daemons reach BlueZ and their API buses from their namespaces; their fast lanes see only
# their own veth end (the production policy: never loopback). Bluetooth sockets exist only in the initial network
# namespace (the kernel refuses AF_BLUETOOTH elsewhere), so the daemons' own L2CAP channels are refused there and
# their Bluetooth leg is GATT, through bluetoothd.
#
# They pair through the real `handoff pair` (once more on a failure, as over the air a first exchange is sometimes
# lost); the laptop shares an item of DAEMONS_SIZE bytes (default 192 MiB, twelve times the old 16 MiB cap) with
# `handoff share --wait`. Passes when the item is delivered over the lane (`transport: tcp`) after starting on
# Bluetooth (the laptop's log names the paths in order, and both logs the lane attempt's steps), the desktop takes it
# byte for byte, and neither daemon's peak resident memory (VmHWM) went past DAEMONS_RSS_LIMIT_MIB (default 64 MiB,
# a third of the item: a daemon that held the item whole would fail). With bluezoo, as many bytes then go through a pipe with `handoff share -`,
# and the CLI's peak memory is held to the same limit (it streams standard input; it used to read it whole).
# shellcheck shell=bash

daemons_scenario() {
    local size=${DAEMONS_SIZE:-$((192 << 20))} limit_mib=${DAEMONS_RSS_LIMIT_MIB:-64} bluez=${DAEMONS_BLUEZ:-bluezoo}
    local bin=$BUILD_PATH work bluezoo_pid="" line system_bus="" machine out status=1
    local -A bus home daemon
    local pids=()
    for program in handoffd handoff; do
        [[ -x $bin/$program ]] || { echo "daemons: $bin/$program is not built"; return 1; }
    done
    work=$(mktemp -d /tmp/handoff-netns-daemons.XXXXXX)
    chmod 755 "$work"
    daemons_cleanup() {
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
        [[ -n $bluezoo_pid ]] && kill "$bluezoo_pid" 2>/dev/null
        wait 2>/dev/null
        # In the VM tier the daemons' logs are kept beside the scenario's (scenarios/NAME.files).
        if [[ -n ${HANDOFF_VM_ARTIFACTS:-} ]] && mkdir -p "$HANDOFF_VM_ARTIFACTS"; then
            for machine in laptop desktop; do
                cp "$work/$machine/handoffd.log" "$HANDOFF_VM_ARTIFACTS/$machine-handoffd.log" 2>/dev/null
            done
        fi
        rm -rf "$work"
    }
    daemons_fail() {
        echo "daemons: $*"
        for machine in laptop desktop; do
            echo "--- $machine handoffd (last 15 lines)"
            tail -n 15 "$work/$machine/handoffd.log" 2>/dev/null
        done
        daemons_cleanup
        return 1
    }
    on() {   # on MACHINE ARGS...: the CLI as that machine's user (root here; the daemon admits root)
        local name=$1; shift
        HANDOFF_BUS_ADDRESS=${bus[$name]} XDG_DATA_HOME=${home[$name]} HOME=${home[$name]} "$bin/handoff" "$@"
    }

    local extra=()
    if [[ $bluez == system ]]; then
        system_bus=${DBUS_SYSTEM_BUS_ADDRESS:-unix:path=/run/dbus/system_bus_socket}
    else
        # bluezoo on a private bus: its address on the first line, READY once both adapters are powered.
        coproc BLUEZOO { exec scripts/bluezoo-bus.sh 2>"$work/bluezoo.err"; }
        bluezoo_pid=$BLUEZOO_PID
        while read -r -t 30 line <&"${BLUEZOO[0]}"; do
            [[ $line == DBUS_SYSTEM_BUS_ADDRESS=* ]] && system_bus=${line#DBUS_SYSTEM_BUS_ADDRESS=}
            [[ $line == READY ]] && break
        done
        [[ -n $system_bus && $line == READY ]] || { cat "$work/bluezoo.err"; daemons_fail "bluezoo did not come up"; return 1; }
        extra=(--discoverable)
    fi

    for machine in laptop desktop; do
        mkdir -p "$work/$machine/home"
        out=$(scripts/api-bus.sh "$work/$machine/api")
        bus[$machine]=$(sed -n 1p <<<"$out")
        pids+=("$(sed -n 2p <<<"$out")")
        home[$machine]=$work/$machine/home
    done
    local -A adapter=([laptop]=hci0 [desktop]=hci1) namespace=([laptop]=$A [desktop]=$B)
    for machine in laptop desktop; do
        ip netns exec "${namespace[$machine]}" env DBUS_SYSTEM_BUS_ADDRESS="$system_bus" \
            "$bin/handoffd" --adapter "${adapter[$machine]}" --name "$machine" --bus "${bus[$machine]}" \
            --state-dir "$work/$machine/state" --notify-bus none "${extra[@]}" >"$work/$machine/handoffd.log" 2>&1 &
        daemon[$machine]=$!
        pids+=($!)
    done
    for machine in laptop desktop; do
        for _ in $(seq 100); do on "$machine" status >/dev/null 2>&1 && break; sleep 0.2; done
        on "$machine" status >/dev/null 2>&1 || { daemons_fail "the $machine daemon did not start"; return 1; }
    done

    pair_once() {
        (echo y | on laptop pair >"$work/laptop/pair.out" 2>&1; echo $? >"$work/laptop/pair.rc") &
        local first=$!
        (echo y | on desktop pair >"$work/desktop/pair.out" 2>&1; echo $? >"$work/desktop/pair.rc") &
        wait "$first" $!
        [[ $(cat "$work/laptop/pair.rc") == 0 && $(cat "$work/desktop/pair.rc") == 0 ]]
    }
    pair_once || { sleep 1; pair_once; } || { cat "$work"/*/pair.out; daemons_fail "pairing failed"; return 1; }

    head -c "$size" /dev/urandom >"$work/video.bin"
    # Its digest, not a second copy: in the VM the work folder is in memory (a 1 GiB guest), where the item, the
    # outbox's copy and the inbox's partial are three of them already.
    local digest
    digest=$(sha256sum <"$work/video.bin")
    local started=$SECONDS result
    result=$(on laptop share --to desktop "$work/video.bin" --wait --json 2>"$work/share.err") || {
        cat "$work/share.err"; daemons_fail "share --wait failed"; return 1; }
    local seconds=$((SECONDS - started))
    read -r state transport rate <<<"$(python3 -c 'import json,sys; e=json.load(sys.stdin)[0]
print(e["state"], e.get("transport", "?"), int(e.get("bytesPerSecond", 0)))' <<<"$result")"
    [[ $state == delivered ]] || { echo "$result"; daemons_fail "the item is $state, not delivered"; return 1; }
    [[ $transport == tcp ]] || { echo "$result"; daemons_fail "the item went over $transport, not the fast lane"; return 1; }
    # The paths the push took, in order, from the laptop's log ("outbox: ID to 'desktop' over KIND (detail)").
    local id paths
    id=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' <<<"$result")
    paths=$(sed -n "s/.*outbox: $id to 'desktop' over \([a-z0-9]*\).*/\1/p" "$work/laptop/handoffd.log" | paste -sd, -)
    [[ $paths == *,tcp* && $paths != tcp* ]] || {
        daemons_fail "the push did not start on Bluetooth and move to the lane (paths: '$paths')"; return 1; }
    # Each step of the lane attempt is a line of each daemon's log (Docs/protocol.md §9, "The log").
    grep -q "fast lane: $id: offer sent (" "$work/desktop/handoffd.log" \
        && grep -q "fast lane: $id: switched to tcp (" "$work/laptop/handoffd.log" \
        && grep -q "fast lane: $id: carried [0-9]* bytes in " "$work/laptop/handoffd.log" || {
        daemons_fail "the daemons' logs do not tell the lane attempt (offer sent, switched, carried)"; return 1; }
    rm -f "$work/video.bin"
    mkdir -p "$work/taken"
    on desktop inbox take --all --to "$work/taken" >/dev/null || { daemons_fail "inbox take failed"; return 1; }
    [[ $(sha256sum <"$work/taken/video.bin") == "$digest" ]] || { daemons_fail "the item taken differs from the one shared"; return 1; }
    rm -f "$work/taken/video.bin"

    # `handoff share -` streams (bluezoo only: the VM's 1 GiB guest keeps its time for the file): as many bytes
    # through a pipe, never in a file, go over the lane too, and the CLI's peak memory stays under the limit, which
    # a CLI that read its input whole (as it did) would pass by the item's size.
    local stdin_fields=""
    if [[ $bluez != system ]]; then
        local cli cli_peak=0 cli_status=0 value
        head -c "$size" /dev/urandom | tee >(sha256sum >"$work/stdin.sha") \
            | (HANDOFF_BUS_ADDRESS=${bus[laptop]} XDG_DATA_HOME=${home[laptop]} HOME=${home[laptop]} \
                   exec "$bin/handoff" share --to desktop --wait --json - >"$work/stdin.json" 2>"$work/stdin.err") &
        cli=$!
        while kill -0 "$cli" 2>/dev/null; do
            value=$(awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/$cli/status" 2>/dev/null)
            [[ -n $value ]] && cli_peak=$value
            sleep 0.1
        done
        wait "$cli" || cli_status=$?
        ((cli_status == 0)) || { cat "$work/stdin.err"; daemons_fail "share - failed"; return 1; }
        local stdin_state stdin_transport
        read -r stdin_state stdin_transport <<<"$(python3 -c 'import json,sys; e=json.load(sys.stdin)[0]
print(e["state"], e.get("transport", "?"))' <"$work/stdin.json")"
        [[ $stdin_state == delivered && $stdin_transport == tcp ]] || { cat "$work/stdin.json"
            daemons_fail "share -: the item is $stdin_state over $stdin_transport, not delivered over tcp"; return 1; }
        on desktop inbox take --all --to "$work/taken" >/dev/null || { daemons_fail "inbox take of stdin.bin failed"; return 1; }
        [[ $(sha256sum <"$work/taken/stdin.bin") == "$(cat "$work/stdin.sha")" ]] || {
            daemons_fail "the item taken differs from standard input"; return 1; }
        stdin_fields=" stdin_cli_peak_rss_MiB=$cli_peak"
        ((cli_peak > 0 && cli_peak <= limit_mib)) || {
            daemons_fail "share -: the CLI's peak resident memory was $cli_peak MiB (limit $limit_mib MiB)"; return 1; }
    fi

    local peaks="" peak over=0
    for machine in laptop desktop; do
        peak=$(awk '/^VmHWM:/ { print int($2 / 1024) }' "/proc/${daemon[$machine]}/status" 2>/dev/null)
        [[ -n $peak ]] || { daemons_fail "the $machine daemon is gone"; return 1; }
        peaks+=" ${machine}_peak_rss_MiB=$peak"
        ((peak <= limit_mib)) || over=1
    done
    echo "RESULT size=$size seconds=$seconds paths=$paths transport=$transport rate_Bps=$rate$peaks$stdin_fields rss_limit_MiB=$limit_mib"
    if ((over)); then daemons_fail "a daemon's peak resident memory went past $limit_mib MiB"; return 1; fi
    status=0
    daemons_cleanup
    return $status
}
