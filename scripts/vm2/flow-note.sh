#!/usr/bin/env bash
# The first two-machine flow, as a user runs it (TESTSCRIPT for scripts/vm2/run-pair.sh): the installed daemon
# started through its systemd unit on both machines, under the stock system bus policy; both `handoff pair` at
# the same moment (answer y); the laptop (A) `handoff note edit groceries --stdin`; the desktop (B) `handoff watch`
# lists it, then `handoff continue --print` gets it byte-exact, over L2CAP (its daemon logs "continued … over
# l2cap"); the laptop `handoff share --to desktop` a 256 KiB file with --wait and the desktop `handoff inbox take
# --all` gets it byte-exact; the laptop `handoff copy` and the desktop `handoff paste` gets it byte-exact; then a
# second Unix user (mallory) on either machine is refused (exit 77). Nothing is restarted between pairing and the
# note. Exit 0 when all of that held.
set -uo pipefail
flow=flow-note; fail_lines=25; source "$(dirname "${BASH_SOURCE[0]}")/flow-lib.sh"
t0=$(date +%s.%N)
mark() { awk -v a="$(date +%s.%N)" -v b="$t0" -v n="$1" 'BEGIN { printf "%-28s %7.1f s\n", n, a - b }' | tee -a "$HANDOFF_VM2_RUN/flow-timings"; }

step "versions"
for m in A B; do
    vm2 "$m" 'echo "$(hostname): $(. /etc/os-release; echo $PRETTY_NAME), Linux $(uname -r), $(bluetoothd --version | sed "s/^/BlueZ /"), $(dpkg-query -W -f "handoff \${Version}" handoff)"' || fail "$m: no answer"
done

step "systemctl start handoffd (the installed unit, stock bus policy)"
for m in A B; do
    vm2 "$m" 'systemctl start handoffd && systemctl is-active handoffd && handoff status' || fail "$m: handoffd did not start through its unit"
done
mark "daemons started"

pair_unless_paired
vm2 B 'handoff devices'
initiator=$(for m in A B; do vm2 "$m" 'journalctl -u handoffd --no-pager | grep -q "as the initiator" && hostname'; done)
echo "(pairing initiator: ${initiator:-not logged})"
mark "paired"

step "both: handoff doctor (README step 4)"
for m in A B; do
    vm2 "$m" 'handoff doctor' | sed "s/^/$m: /"
    rc=${PIPESTATUS[0]}
    # Unsafe (exit 1) is what doctor must say while LE privacy is off; with run-pair.sh --privacy, nothing is.
    if vm2 "$m" 'grep -q "^Privacy *= *device" /etc/bluetooth/main.conf'; then
        ((rc == 0)) || fail "$m: handoff doctor reports something unsafe with Privacy = device (exit $rc)"
    else
        ((rc == 1)) || fail "$m: handoff doctor exited $rc with LE privacy off, expected 1 (unsafe)"
    fi
done

step "desktop: handoff watch; laptop: handoff note edit groceries --stdin (nothing restarted since pairing)"
vm2 --bg B watch 'exec handoff watch' >/dev/null
sleep 1
note=$'# Groceries\nmilk\neggs\nbread\n'
printf '%s' "$note" >"$HANDOFF_VM2_RUN/note.txt"
vm2 --put A "$HANDOFF_VM2_RUN/note.txt"
vm2 A 'handoff note edit groceries --stdin --grace 120 </run/handoff-host/note.txt' || fail "note edit on the laptop"
mark "note saved"
watch_out=$HANDOFF_VM2_RUN/B/share/cmd/watch.out
for ((i = 0; i < 1800; i++)); do grep -q '^available:' "$watch_out" 2>/dev/null && break; sleep 0.1; done
cat "$watch_out"
grep -q '^available:' "$watch_out" || fail "the desktop's watch listed nothing within 180 s"
mark "desktop notified"

step "desktop: handoff continue --print"
vm2 B 'handoff continue --print >/run/handoff-host/continued.txt' || fail "continue --print failed"
cat "$HANDOFF_VM2_RUN/B/share/continued.txt"
cmp "$HANDOFF_VM2_RUN/note.txt" "$HANDOFF_VM2_RUN/B/share/continued.txt" || fail "the continued note differs from the laptop's"
echo "(byte-exact)"
path=$(vm2 B 'journalctl -u handoffd --no-pager | grep -o "continued .* over .*" | tail -n 1')
echo "desktop handoffd: $path"
[[ $path == *" over l2cap"* ]] || fail "the note did not come over L2CAP (${path:-no log line})"
mark "continued"

step "laptop: handoff share --to desktop photo.jpg --wait; desktop: handoff inbox take --all"
head -c 262144 /dev/urandom >"$HANDOFF_VM2_RUN/photo.jpg"
vm2 --put A "$HANDOFF_VM2_RUN/photo.jpg"
vm2 A 'handoff share --to desktop /run/handoff-host/photo.jpg --wait' || fail "share --wait on the laptop"
vm2 A 'handoff outbox'
vm2 A 'journalctl -u handoffd --no-pager | grep -o "outbox: .* delivered to .*" | tail -n 1'
vm2 B 'handoff inbox' || fail "inbox on the desktop"
vm2 B 'rm -rf /root/taken && mkdir /root/taken && handoff inbox take --all --to /root/taken && ls -l /root/taken && cp /root/taken/photo.jpg /run/handoff-host/taken-photo.jpg' \
    || fail "inbox take on the desktop"
cmp "$HANDOFF_VM2_RUN/photo.jpg" "$HANDOFF_VM2_RUN/B/share/taken-photo.jpg" || fail "the taken photo differs from the laptop's"
[[ -z $(vm2 B 'handoff inbox --ids') ]] || fail "the desktop's inbox is not empty after take --all"
echo "(256 KiB photo byte-exact; the inbox is empty)"
mark "shared and taken"

step "laptop: handoff copy; desktop: handoff paste"
clip=$'ssh build-01 -- tail -f /var/log/syslog # copied é\n'
printf '%s' "$clip" >"$HANDOFF_VM2_RUN/clip.txt"
vm2 --put A "$HANDOFF_VM2_RUN/clip.txt"
vm2 A 'handoff copy </run/handoff-host/clip.txt' || fail "copy on the laptop"
for ((i = 0; i < 60; i++)); do
    vm2 B 'handoff paste >/run/handoff-host/pasted.txt' >/dev/null 2>&1 \
        && cmp -s "$HANDOFF_VM2_RUN/clip.txt" "$HANDOFF_VM2_RUN/B/share/pasted.txt" && break
    sleep 1
done
cmp "$HANDOFF_VM2_RUN/clip.txt" "$HANDOFF_VM2_RUN/B/share/pasted.txt" || fail "the desktop did not paste the laptop's copy within 60 s"
cat "$HANDOFF_VM2_RUN/B/share/pasted.txt"
echo "(pasted byte-exact after $i s)"
mark "copied and pasted"

step "a second Unix user (mallory) on the desktop is refused"
for cmd in 'handoff continue --print' 'handoff devices'; do
    vm2 B "runuser -u mallory -- $cmd"
    rc=$?
    [[ $rc == 77 ]] || fail "mallory: '$cmd' exited $rc, expected 77 (refused)"
    echo "(mallory: '$cmd' refused, exit 77)"
done
vm2 A 'echo mine | runuser -u mallory -- handoff note edit theirs --stdin'
rc=$?
[[ $rc == 77 ]] || fail "mallory: note edit on the laptop exited $rc, expected 77"
vm2 B 'runuser -u mallory -- busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus RequestName su org.handoff.Handoff1 4' \
    && fail "mallory could own org.handoff.Handoff1 on the system bus"
echo "(mallory cannot own the daemon's name under the stock bus policy)"
mark "second user refused"
echo "flow-note: PASS"
