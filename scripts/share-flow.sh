# Sourced by scripts/demo-flow.sh --share, after the two daemons paired (it uses that script's on, say, show,
# step, power_cycle, $work, $bin, $logs and ${bus[...]}): sharing through the real CLI and daemons on the real
# bluetoothd. A 3 KB text, a link and a 1 MiB file arrive intact; the sender's CLI returns before the transfer
# is done; the receiver's adapter is switched off mid-transfer and on again, and the push resumes and completes;
# hostile names land safely inside the inbox; an unpaired device's push is refused. Exits the flow.
# shellcheck shell=bash

share_fail() { echo "share-flow: $*" >&2; tail -n 30 "$logs"/*-handoffd.log >&2; exit 1; }

outbox_state() {   # outbox_state ID: the item's state in the laptop's outbox
    on laptop outbox --json | python3 -c 'import json,sys; i=sys.argv[1]
print(next((e["state"]+" "+str(e["sentBytes"])+" "+e["reason"] for e in json.load(sys.stdin) if e["id"]==i), "missing"))' "$1"
}

wait_final() {   # wait_final SECONDS ID...: until every item is delivered, failed or cancelled
    local limit=$1 id state; shift
    for _ in $(seq $((limit * 2))); do
        local pending=0
        for id in "$@"; do
            state=$(outbox_state "$id")
            [[ $state == delivered* || $state == failed* || $state == cancelled* ]] || pending=1
        done
        ((pending)) || return 0
        sleep 0.5
    done
    return 1
}

share_id() { python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])'; }

say "share a 3 KB text, a link and a 1 MiB file; the CLI returns at once"
text=$(python3 -c 'print(("Three kilobytes of notes, with é and ü. " * 80)[:3000], end="")')
head -c 1048576 /dev/urandom >"$work/report.pdf"
show laptop "handoff share --to desktop --text \"<3000 characters>\""
t_id=$(on laptop share --to desktop --text "$text" --json | share_id) || share_fail "share --text failed"
show laptop "handoff share --to desktop --url https://example.org/handoff?x=1"
u_id=$(on laptop share --to desktop --url 'https://example.org/handoff?x=1' --json | share_id) || share_fail "share --url failed"
# The desktop's daemon is stopped (SIGSTOP) while the file is shared: over the L2CAP channel a megabyte takes about
# 3 s, so only a receiver that cannot answer proves that share returns before the delivery, which the laptop's
# daemon then completes alone once the desktop runs again (SIGCONT).
kill -STOP "${daemon_pids[1]}"
show laptop "handoff share --to desktop report.pdf"
before=$(now)
f_id=$(on laptop share --to desktop "$work/report.pdf" --json | share_id) || { kill -CONT "${daemon_pids[1]}"; share_fail "share report.pdf failed"; }
after=$(now)
state=$(outbox_state "$f_id")
kill -CONT "${daemon_pids[1]}"
printf '(share returned after %.2f s with the desktop stopped; the file is %s)\n' \
    "$(awk -v a="$after" -v b="$before" 'BEGIN{print a-b}')" "$state"
[[ $state != delivered* ]] || share_fail "the 1 MiB file was delivered to a stopped desktop: the outbox lies"
show laptop handoff outbox; on laptop outbox
step "share x3 (CLI returned)"
wait_final 900 "$t_id" "$u_id" "$f_id" || share_fail "not delivered in time: $(outbox_state "$f_id")"
show laptop handoff outbox; on laptop outbox
for id in "$t_id" "$u_id" "$f_id"; do
    [[ $(outbox_state "$id") == delivered* ]] || share_fail "$id: $(outbox_state "$id")"
done
step "3 KB text + link + 1 MiB file delivered"
show desktop handoff inbox; on desktop inbox
mkdir -p "$work/taken"
show desktop "handoff inbox take --all --to taken"; on desktop inbox take --all --to "$work/taken" || share_fail "take failed"
[[ $(cat "$work/taken/text.txt") == "$text" ]] || share_fail "the text differs"
[[ $(cat "$work/taken/link.txt") == 'https://example.org/handoff?x=1' ]] || share_fail "the link differs"
cmp "$work/report.pdf" "$work/taken/report.pdf" || share_fail "the file differs"
echo "(all three identical to what the laptop shared)"
[[ -z $(on desktop inbox --ids) ]] || share_fail "the inbox is not empty after take --all"
step "inbox take --all (intact)"

say "the desktop's adapter is switched off mid-transfer, then on: the push resumes and completes"
# 8 MiB: over the L2CAP channel a megabyte takes about 3 s, so a smaller item is delivered before the outbox can
# even be asked whether it is under way.
head -c 8388608 /dev/urandom >"$work/photo.jpg"
r_id=$(on laptop share --to desktop "$work/photo.jpg" --json | share_id) || share_fail "share photo.jpg failed"
for _ in $(seq 240); do
    read -r st sent _ <<<"$(outbox_state "$r_id")"
    [[ $st == sending && $sent -gt 20000 ]] && break
    [[ $st == delivered ]] && share_fail "the 8 MiB item was delivered before the power cycle could interrupt it"
    sleep 0.25
done
echo "(laptop outbox: $(outbox_state "$r_id"))"
power_cycle hci1
wait_final 600 "$r_id" || share_fail "not delivered after the power cycle: $(outbox_state "$r_id")"
[[ $(outbox_state "$r_id") == delivered* ]] || share_fail "after the power cycle: $(outbox_state "$r_id")"
on desktop inbox take --all --to "$work/taken" >/dev/null 2>&1 || share_fail "take after the power cycle failed"
cmp "$work/photo.jpg" "$work/taken/photo.jpg" || share_fail "the resumed file differs"
grep -c "outbox: $r_id waits" "$logs/laptop-handoffd.log" | sed 's/^/(attempts that had to wait: /; s/$/)/'
echo "(identical after the power cycle)"
step "power cycle mid-transfer, resumed"

say "hostile names, through the API: they land inside the inbox, made safe"
long=$(printf 'x%.0s' $(seq 300)).txt
for name in '../../etc/passwd' '/abs/path' "$(printf 'a\001b')" "$long" '.hidden'; do
    busctl --address="${bus[laptop]}" call org.handoff.Handoff1 /org/handoff/Handoff1 org.handoff.Handoff1 \
        Share ssssay desktop file "$name" application/octet-stream 3 1 2 3 >/dev/null || share_fail "Share $name"
done
ids=($(on laptop outbox --json | python3 -c 'import json,sys; print(" ".join(e["id"] for e in json.load(sys.stdin) if e["state"] not in ("delivered","failed","cancelled")))'))
wait_final 300 "${ids[@]}" || share_fail "hostile names not delivered"
show desktop "handoff inbox --json"; on desktop inbox --json
mkdir -p "$work/hostile"
on desktop inbox take --all --to "$work/hostile" || share_fail "take of hostile names failed"
show desktop "ls -A hostile"; ls -A "$work/hostile"
names=$(ls -A "$work/hostile" | sort | tr '\n' '|')
expected=$(printf '%s\n' etc_passwd abs_path ab "$(printf 'x%.0s' $(seq 196)).txt" hidden | sort | tr '\n' '|')
[[ $names == "$expected" ]] || share_fail "hostile names: got '$names', expected '$expected'"
[[ ! -e /abs/path && ! -e "$work/etc/passwd" ]] || share_fail "a name escaped"
echo "(every item inside the folder, under a safe name)"
step "hostile names"

say "an unpaired device's push is refused"
show desktop "handoff unpair laptop"; on desktop unpair laptop || share_fail "unpair failed"
s_id=$(on laptop share --to desktop --text "not any more" --json | share_id) || share_fail "share after unpair"
wait_final 120 "$s_id" || share_fail "the refused push never finished: $(outbox_state "$s_id")"
show laptop handoff outbox; on laptop outbox | tail -n 1
[[ $(outbox_state "$s_id") == failed*untrustedPeer* ]] || share_fail "not refused as untrusted: $(outbox_state "$s_id")"
[[ -z $(on desktop inbox --ids 2>/dev/null) ]] || share_fail "the refused item reached the inbox"
step "unpaired push refused (4612)"

say "timings"
printf '%s\n' "${timings[@]}"
exit 0
