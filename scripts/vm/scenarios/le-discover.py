#!/usr/bin/python3
"""Holds an LE discovery session open on one adapter, the way a BlueZ client does it:
SetDiscoveryFilter({"Transport": "le"}) then StartDiscovery, both on one D-Bus connection that stays open
(BlueZ stops a client's discovery when its connection closes, so busctl cannot do this).

    le-discover.py ADAPTER SECONDS [RESTART]   e.g. le-discover.py hci1 60 3

Prints "discovering" once started. With RESTART, stops and starts discovery again every RESTART seconds:
btvirt sends an advertiser's report only when scanning is enabled, and under TCG that report can reach the
kernel before it marks discovery active, which loses it; a restart gets a fresh report (see Docs/bluez.md).
Stops discovery and exits after SECONDS or on SIGTERM. Uses the system python3-dbus (hence /usr/bin/python3)
without a main loop (importing gi costs ~3 s under TCG). Used by the scenarios in this folder.
"""

import signal
import sys
import time

import dbus


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    adapter_name, seconds = sys.argv[1], float(sys.argv[2])
    restart = float(sys.argv[3]) if len(sys.argv) == 4 else 0.0
    bus = dbus.SystemBus()
    adapter = dbus.Interface(bus.get_object("org.bluez", f"/org/bluez/{adapter_name}"), "org.bluez.Adapter1")
    adapter.SetDiscoveryFilter(dbus.Dictionary({"Transport": "le"}, signature="sv"))
    adapter.StartDiscovery()
    print("discovering", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    deadline = time.monotonic() + seconds
    next_restart = time.monotonic() + restart
    while not stop and time.monotonic() < deadline:
        time.sleep(0.2)
        if restart and time.monotonic() >= next_restart and not stop:
            try:
                adapter.StopDiscovery()
                adapter.StartDiscovery()
                print("restarted discovery", flush=True)
            except dbus.DBusException as error:
                print(f"restart: {error}", file=sys.stderr, flush=True)
            next_restart = time.monotonic() + restart
    try:
        adapter.StopDiscovery()
    except dbus.DBusException as error:
        print(f"StopDiscovery: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
