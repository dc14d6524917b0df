"""Starts bluezoo (the BlueZ D-Bus mock from PyPI) with its Device1 property types corrected, and able to connect
to a device a second time.

bluezoo 1.0.2 declares org.bluez.Device1.ManufacturerData and AdvertisingData as a{sv}; BlueZ's API
(doc/org.bluez.Device.rst) has a{qv} and a{yv}. With the wrong type, a discovered device that carries
manufacturer data makes Get, GetAll and ObjectManager.GetManagedObjects fail with an empty error, because the
company id (an integer) cannot be written as a string key.

bluezoo 1.0.2 also exports the peer's GATT objects under the device at every Connect and never removes them, so a
second Connect to the same device fails: sd_bus_add_object_vtable returns EEXIST (17), as Device1.Connect's error.
BlueZ itself connects again (keeping or rebuilding its attribute cache). Before a Connect of a device that is not
connected, this wrapper removes the objects of the previous connection, as BlueZ does with its cache off
([GATT] Cache=no): they are exported afresh, with InterfacesRemoved and InterfacesAdded for them.

And bluezoo 1.0.2 sets Connected on the other side of a connection on a Device object of its own, which is the one
on the bus only when the Connect itself added it. When the other adapter's scan had found the connecting one first
(the usual order), that side's Device1 never says Connected, so its GATT server cannot notify the central (the
pairing responder of `scripts/demo.sh --bluezoo` then never answered, 4610). The wrapper uses the exported object.

This wrapper makes both fixes before any object is exported, then runs bluezoo's own command line unchanged (same
arguments as `bluezoo`).

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


def connect_again() -> None:
    original = getattr(device.Device, "connect", None)
    if original is None or not hasattr(bluezoo.BluezMockService, "remove_object"):
        sys.exit("run_bluezoo: bluezoo has no Device.connect() or remove_object(); update this wrapper")

    async def connect(self, uuid=None):
        if not self.connected:
            for link in list(self.services.values()):
                self.peer_adapter.mock.remove_object(link)
            self.services.clear()
        # The connecting adapter as a device of the other one: when the other adapter's scan exported it first,
        # Connected must be set on that object, not on a copy nobody sees.
        path = f"{self.peer_adapter.get_object_path()}/dev_{self.peer.address.replace(':', '_')}"
        self.peer = self.peer_adapter.devices.get(path, self.peer)
        await original(self, uuid)

    device.Device.connect = connect


if __name__ == "__main__":
    correct_device_types()
    connect_again()
    sys.exit(bluezoo.main())
