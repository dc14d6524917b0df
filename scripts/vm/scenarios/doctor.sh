#!/usr/bin/env bash
# `handoff doctor` on the real bluetoothd and kernel of the VM, against the settings the VM is known to run with:
#
#   doctor.sh --privacy off|device      (the scenario's @privacy)
#
# Privacy off: both controllers flagged unsafe with the main.conf fix, exit 1; privacy device: both ok. In both:
# bluetoothd 5.66 ok, LE CoC offered, and, each set up here and undone afterwards, an adapter named after the host
# (unsafe, with the Alias command), a discoverable adapter (warning), the shipped bus policy (ok) then a changed
# one (unsafe), a state directory open to others (unsafe) then 0700 (ok). Run as root and as nobody (the kernel's
# management interface answers any user).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
repo=$(cd "$here/../../.." && pwd)
handoff=$repo/.build/debug/handoff
[[ -x $handoff ]] || fail "$handoff is not built"

read_privacy_option "$@"
out=${HANDOFF_VM_ARTIFACTS:-$SCENARIO_TMP/files}
mkdir -p "$out"
conf=/run/handoff-vm/main.conf            # what guest-bluez.sh started bluetoothd with
policy=/etc/dbus-1/system.d/org.handoff.Handoff1.conf
state=$SCENARIO_TMP/state

cleanup() {
    rm -f "$policy"
    busctl --system set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Alias s "" 2>/dev/null
    busctl --system set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Discoverable b false 2>/dev/null
    scenario_cleanup
}
trap cleanup EXIT

# doctor NAME [setpriv ...]: runs handoff doctor --json into $out/NAME.json (text into NAME.txt), sets $rc
doctor() {
    local name=$1; shift
    "$@" "$handoff" doctor --main-conf "$conf" --state-dir "$state" >"$out/$name.txt" 2>&1
    "$@" "$handoff" doctor --json --main-conf "$conf" --state-dir "$state" >"$out/$name.json" 2>"$out/$name.err"
    rc=$?
    note "handoff doctor ($name): exit $rc"
    sed 's/^/    /' "$out/$name.txt" >&2
}
# expect NAME PYTHON-EXPRESSION DESCRIPTION: the expression over `f` (check -> [findings]) must hold
expect() {
    python3 - "$out/$1.json" "$2" "$3" <<'EOF' || fail "$1: $3"
import json, sys
from collections import defaultdict
doc = json.load(open(sys.argv[1]))
f = defaultdict(list)
for finding in doc["findings"]:
    f[finding["check"]].append(finding)
sev = lambda check: [x["severity"] for x in f[check]]
text = lambda check: " ".join(x["summary"] + " " + " ".join(x["fix"]) for x in f[check])
if not eval("(" + sys.argv[2] + ")"):
    print(json.dumps(doc, indent=2, ensure_ascii=False), file=sys.stderr)
    sys.exit(1)
print("scenario: ok: " + sys.argv[3], file=sys.stderr)
EOF
}

addr0=$(adapter_address hci0) addr1=$(adapter_address hci1)
host=$(hostname)
mkdir -p "$state" && chmod 0700 "$state"

doctor plain
if [[ $privacy == off ]]; then
    ((rc == 1)) || fail "privacy off: handoff doctor exited $rc, expected 1 (unsafe)"
    expect plain "sev('privacy') == ['unsafe', 'unsafe'] and '$addr0' in text('privacy') and '$addr1' in text('privacy')
        and 'Privacy = device' in text('privacy') and 'main.conf: Privacy = off' in text('privacy')" \
        "privacy off: hci0 and hci1 unsafe, their public addresses named, the fix is Privacy = device"
else
    expect plain "sev('privacy') == ['ok', 'ok'] and 'Privacy = device' in text('privacy')" \
        "privacy device: the kernel runs hci0 and hci1 with privacy"
fi
expect plain "sev('bluetoothd') == ['ok'] and '5.66' in text('bluetoothd')" "bluetoothd 5.66"
expect plain "sev('experimental') == ['ok']" "bluetoothd without -E"
expect plain "sev('le-coc') == ['ok'] and 'PSM 0x' in text('le-coc')" "the kernel offers LE CoC"
expect plain "sev('discoverable') == ['ok', 'ok']" "neither adapter discoverable"
expect plain "sev('bus-policy') == ['warning'] and '$policy' in text('bus-policy')" "no policy installed: a warning"
expect plain "sev('state-directory') == ['ok'] and '0700' in text('state-directory')" "state directory 0700"
expect plain "sev('adapter-name') == ['info', 'info']" "the VM's generic adapter names are information only"

# The same as nobody: the kernel's management interface answers an unprivileged user.
chmod 0755 "$SCENARIO_TMP"
doctor nobody setpriv --reuid=65534 --regid=65534 --clear-groups
expect nobody "len(f['privacy']) == 2 and 'cannot read' not in text('privacy')" "nobody reads both controllers"

# An adapter named after the host, a discoverable one, the shipped policy, a changed policy, an open state dir.
busctl --system set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Alias s "$host" || fail "cannot set Alias"
busctl --system set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Discoverable b true || fail "cannot set Discoverable"
install -m 0644 "$repo/dbus-policy/org.handoff.Handoff1.conf" "$policy"
chmod 0755 "$state"
wait_until 10 sh -c "'$handoff' doctor --json --main-conf '$conf' --state-dir '$state' | grep -q 'hci0 is discoverable ('"
doctor changed
((rc == 1)) || fail "handoff doctor exited $rc with unsafe findings, expected 1"
expect changed "sev('adapter-name')[0] == 'unsafe' and \"gives away '$host'\" in text('adapter-name')
    and \"Alias s 'Linux'\" in text('adapter-name')" "an adapter named after the host ($host) is unsafe, with the fix"
expect changed "sev('discoverable')[0] == 'warning' and 'discoverable off' in text('discoverable')" \
    "a discoverable adapter is a warning with the fix"
expect changed "sev('bus-policy') == ['ok']" "the shipped policy, installed, is ok"
expect changed "sev('state-directory') == ['unsafe'] and 'chmod 0700' in text('state-directory')" \
    "a state directory open to others is unsafe, with the chmod"

echo '<!-- changed -->' >>"$policy"
doctor policy-changed
expect policy-changed "sev('bus-policy') == ['unsafe'] and 'differs' in text('bus-policy')" \
    "a changed bus policy is unsafe"
note "PASS: handoff doctor's findings match the VM's settings (Privacy=$privacy)"
