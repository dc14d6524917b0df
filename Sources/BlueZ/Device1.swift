import DBus
import FoundationEssentials

/// A remote device as BlueZ sees it (`org.bluez.Device1`, doc/org.bluez.Device.rst): a handle on the object
/// path plus the operations; the properties are read from the mirrored object tree.
public struct Device1: Sendable, Hashable {
    /// The object path, e.g. `/org/bluez/hci1/dev_00_AA_01_01_00_24`.
    public let path: ObjectPath
    let bluez: BlueZ

    init(path: ObjectPath, bluez: BlueZ) {
        self.path = path
        self.bluez = bluez
    }

    /// Two handles are equal when they name the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.path == rhs.path }
    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// The typed `Device1` properties.
    public struct Properties: Sendable, Equatable {
        /// The device object.
        public var path: ObjectPath
        /// `Adapter`: the adapter that sees this device.
        public var adapter: ObjectPath?
        /// `Address`.
        public var address: BluetoothAddress
        /// `AddressType`: `public` or `random`.
        public var addressType: String?
        /// `Name`, when advertised.
        public var name: String?
        /// `Alias`.
        public var alias: String?
        /// `RSSI` of the last advertisement seen (only present during discovery).
        public var rssi: Int16?
        /// `TxPower`, when advertised.
        public var txPower: Int16?
        /// `ManufacturerData` (`a{qv}`), keyed by company identifier.
        public var manufacturerData: [UInt16: Data]
        /// `ServiceData` (`a{sv}`), keyed by service UUID.
        public var serviceData: [BluetoothUUID: Data]
        /// `UUIDs`: advertised (or, once resolved, discovered) service UUIDs.
        public var uuids: [BluetoothUUID]
        /// `Connected`.
        public var connected: Bool
        /// `ServicesResolved`: GATT discovery finished; the GattService1 objects exist.
        public var servicesResolved: Bool
        /// `Paired`.
        public var paired: Bool
        /// `Bonded` (BlueZ 5.67+; false before).
        public var bonded: Bool
        /// `Trusted`.
        public var trusted: Bool
        /// `Blocked`: bluetoothd refuses the device's connections (the kernel's reject list) and stores the block.
        public var blocked: Bool
    }
}
