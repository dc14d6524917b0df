#!/usr/bin/python3
"""Holds an LE discovery session open on one adapter, the way a BlueZ client does it:
SetDiscoveryFilter({"Transport": "le"}) then StartDiscovery, both on one D-Bus connection that stays open
(BlueZ stops a client's discovery when its connection closes, so busctl cannot do this).

    le-discover.py ADAPTER SECONDS     e.g. le-discover.py hci1 60; prints "discovering" once started

Stops discovery and exits after SECONDS or on SIGTERM. Uses the system python3-dbus (hence /usr/bin/python3) without a main loop (importing gi
costs ~3 s under TCG). Used by advert-seen.sh; see Docs/bluez.md for why the filter matters.
"""

import signal
import sys
import time

import dbus


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    adapter_name, seconds = sys.argv[1], float(sys.argv[2])
    bus = dbus.SystemBus()
    adapter = dbus.Interface(bus.get_object("org.bluez", f"/org/bluez/{adapter_name}"), "org.bluez.Adapter1")
    adapter.SetDiscoveryFilter(dbus.Dictionary({"Transport": "le"}, signature="sv"))
    adapter.StartDiscovery()
    print("discovering", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    deadline = time.monotonic() + seconds
    while not stop and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        adapter.StopDiscovery()
    except dbus.DBusException as error:
        print(f"StopDiscovery: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
