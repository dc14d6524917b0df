"""Starts bluezoo (the BlueZ D-Bus mock from PyPI) with its Device1 property types corrected.

bluezoo 1.0.2 declares org.bluez.Device1.ManufacturerData and AdvertisingData as a{sv}; BlueZ's API
(doc/org.bluez.Device.rst) has a{qv} and a{yv}. With the wrong type, a discovered device that carries
manufacturer data makes Get, GetAll and ObjectManager.GetManagedObjects fail with an empty error, because the
company id (an integer) cannot be written as a string key. This wrapper fixes the declared types before any
object is exported, then runs bluezoo's own command line unchanged (same arguments as `bluezoo`).

Used by scripts/bluezoo-bus.sh; see Docs/bluez.md ("bluezoo: what works").
"""

import sys

from bluezoo import bluezoo, device

# Property name -> the type BlueZ documents.
CORRECT_TYPES = {
    "ManufacturerData": "a{qv}",
    "AdvertisingData": "a{yv}",
}


def correct_device_types() -> None:
    members = vars(device.Device)
    for name, signature in CORRECT_TYPES.items():
        prop = members.get(name)
        if prop is None or not hasattr(prop, "property_signature"):
            sys.exit(f"run_bluezoo: bluezoo's Device has no D-Bus property {name}; update this wrapper")
        prop.property_signature = signature


if __name__ == "__main__":
    correct_device_types()
    sys.exit(bluezoo.main())
