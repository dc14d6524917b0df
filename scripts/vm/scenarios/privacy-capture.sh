#!/usr/bin/env bash
# What a stranger learns (issue 14, section 5): the whole `make demo` flow (scripts/demo-flow.sh: two handoffd,
# pair, watch, note edit, continue) under a btmon capture of its own that lasts the whole session, then
# privacy-capture.py asserts that the capture holds neither the note's text, title and name nor the activity
# type, in any encoding, that it covers the pairing and the continue, where device names and addresses appear.
#
#   privacy-capture.sh [--privacy off|device]     (the scenario's @privacy; it decides what the addresses must be)
#
# The adapters get host-name-like aliases for the session (what bluetoothd serves as the GAP Device Name on a
# real machine), restored afterwards. The capture, btmon's decoded text and the report stay in the scenario's
# files folder ($HANDOFF_VM_ARTIFACTS).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
repo=$(cd "$here/../../.." && pwd)

read_privacy_option "$@"

out=${HANDOFF_VM_ARTIFACTS:-$SCENARIO_TMP/files}
mkdir -p "$out"
note_name=kumquat-ledger-q7
title="Kumquat ledger № 7 — Quokka"
aliases=(alices-thinkpad alices-tower)

# A note that cannot occur by chance in a capture: unusual words, digits, and non-ASCII characters, so that the
# payload's property list stores its strings as UTF-16BE (the encoding a decoder would have to look for).
python3 - "$out/note.md" "$title" <<'EOF'
import random, sys
words = ["quillwort", "zephyrine", "brûlée", "oxtail", "marzipan", "quokka", "fjordlike", "kumquat", "wombat",
         "sassafras", "ptarmigan", "yuzu", "okapi", "gnomon", "xylarium", "vellum", "jacquard", "ombré"]
rng = random.Random(7)
lines = ["# " + sys.argv[2], ""]
while sum(len(l.encode()) + 1 for l in lines) < 6000:
    lines.append(f"- {rng.randrange(1000, 9999)} " + " ".join(rng.choice(words) for _ in range(5))
                 + f" №{rng.randrange(10, 99)}")
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(lines) + "\n")
EOF
note "note: $(wc -c <"$out/note.md") bytes, title '$title', name $note_name"

restore_aliases() {
    local a
    for a in hci0 hci1; do
        busctl --system set-property org.bluez "/org/bluez/$a" org.bluez.Adapter1 Alias s "" 2>/dev/null
    done
}
capture_pid=""
finish() {
    [[ -n $capture_pid ]] && kill "$capture_pid" 2>/dev/null && wait "$capture_pid" 2>/dev/null
    restore_aliases
    scenario_cleanup
}
trap finish EXIT
busctl --system set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Alias s "${aliases[0]}" \
    && busctl --system set-property org.bluez /org/bluez/hci1 org.bluez.Adapter1 Alias s "${aliases[1]}" \
    || fail "cannot set the adapters' aliases"
publics=("$(adapter_address hci0)" "$(adapter_address hci1)")
note "adapters: hci0 ${publics[0]} '${aliases[0]}', hci1 ${publics[1]} '${aliases[1]}', Privacy=$privacy"

# The session's own capture, from before the daemons start until after the continue. The kernel drops monitor
# records that the reader has not read when its socket buffer is full, and under TCG btmon (which decodes every
# record even with -w) fell behind a burst of notifications, and BlueZ 5.66's btmon crashed in its ATT decoder
# (SIGSEGV, on both tries in a full run). So monitor-capture.py reads the monitor channel with a 32 MiB buffer
# and decodes nothing, writing to the guest's tmpfs; the file is copied afterwards. The coverage check below
# proves the result.
capture=$SCENARIO_TMP/session.btsnoop
python3 "$repo/scripts/vm/monitor-capture.py" "$capture" 2>"$out/capture.log" &
capture_pid=$!
wait_until 10 test -s "$capture" || fail "monitor-capture.py wrote nothing"
sleep 0.5

"$repo/scripts/demo-flow.sh" --note "$out/note.md" --note-name "$note_name" || fail "the demo flow failed"

kill "$capture_pid" && wait "$capture_pid" || fail "monitor-capture.py failed: $(cat "$out/capture.log")"
capture_pid=""
cp "$capture" "$out/session.btsnoop"
# btmon's decoded text is searched for secrets too. BlueZ 5.66's btmon can crash decoding a session (its ATT
# decoder, SIGSEGV); what it printed before that is searched, and the report says how far it got: the checker's
# own search of every record and every reassembled L2CAP SDU does not depend on it.
if ! btmon -r "$out/session.btsnoop" >"$out/session.txt" 2>&1; then
    note "btmon -r crashed after $(wc -l <"$out/session.txt") lines of decoded text (BlueZ $(bluetoothd -v)); that part is searched"
fi

# First the checker itself: a synthetic capture that leaks must fail it.
python3 "$here/privacy-capture.py" --self-test || fail "the capture checker passes a leaking capture"
python3 "$here/privacy-capture.py" "$out/session.btsnoop" --decoded "$out/session.txt" --note "$out/note.md" \
    --secret "$title" --secret "$note_name" --secret org.handoff.note \
    --pairing-name laptop --pairing-name desktop \
    --gap-name "${aliases[0]}" --gap-name "${aliases[1]}" \
    --public-address "${publics[0]}" --public-address "${publics[1]}" \
    --privacy "$privacy" | tee "$out/report.txt"
exit "${PIPESTATUS[0]}"
