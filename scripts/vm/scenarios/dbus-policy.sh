#!/usr/bin/env bash
# The shipped policy (dbus-policy/org.handoff.Handoff1.conf) on the VM's real system bus configuration
# (system.conf + our folder): root may own org.handoff.Handoff1; another user (nobody) may not own it, nor
# the test names, but may call methods on it; nobody may not own arbitrary names either.
source "$(dirname "$0")/lib.sh"

py=$SCENARIO_TMP/policy.py
chmod 755 "$SCENARIO_TMP"   # nobody must be able to read the script
cat >"$py" <<'PY'
import os
import sys

import dbus

name, mode = sys.argv[1], sys.argv[2]
if mode == "serve":
    # Dispatch messages so libdbus answers org.freedesktop.DBus.Peer.Ping and rejects unknown methods with
    # UnknownMethod (importing gi costs ~3 s under TCG; only this mode pays it).
    import dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
try:
    result = bus.request_name(name, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
except dbus.DBusException as error:
    print(f"uid {os.getuid()}: own {name}: {error.get_dbus_name()}")
    sys.exit(1)
print(f"uid {os.getuid()}: own {name}: granted ({result})", flush=True)
if mode == "serve":
    print("serving", flush=True)
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
PY
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

/usr/bin/python3 "$py" org.handoff.Handoff1 once || fail "root may not own org.handoff.Handoff1"
as_nobody /usr/bin/python3 "$py" org.handoff.Handoff1 once && fail "nobody could own org.handoff.Handoff1"
as_nobody /usr/bin/python3 "$py" org.handoff.test.Peripheral once && fail "nobody could own a test name"
as_nobody /usr/bin/python3 "$py" org.example.Anything once && fail "nobody could own an arbitrary name"
note "ownership: root yes, nobody no"

/usr/bin/python3 "$py" org.handoff.Handoff1 serve >"$SCENARIO_TMP/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; scenario_cleanup' EXIT
wait_until 30 grep -q serving "$SCENARIO_TMP/serve.log" || fail "root could not serve org.handoff.Handoff1"
out=$(as_nobody busctl --system call org.handoff.Handoff1 / org.freedesktop.DBus.Peer Ping 2>&1) \
    || fail "nobody may not call org.handoff.Handoff1: $out"
out=$(as_nobody busctl --system call org.handoff.Handoff1 /org/handoff/Handoff1 org.handoff.Handoff1 Probe 2>&1)
grep -q "AccessDenied\|denied" <<<"$out" && fail "nobody's method call was denied: $out"
note "calls: nobody may call org.handoff.Handoff1 (Ping answered; unknown method reached the owner: $out)"
