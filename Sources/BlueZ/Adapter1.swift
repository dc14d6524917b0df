import DBus
import FoundationEssentials

/// A local Bluetooth adapter (`org.bluez.Adapter1`, doc/org.bluez.Adapter.rst), with the LE managers it carries.
public struct Adapter1: Sendable, Hashable {
    /// The object path, e.g. `/org/bluez/hci0`.
    public let path: ObjectPath
    let bluez: BlueZ

    init(path: ObjectPath, bluez: BlueZ) {
        self.path = path
        self.bluez = bluez
    }

    /// The adapter's name: the last path element (`hci0`).
    public var name: String { String(path.elements.last ?? "") }

    /// Two handles are equal when they name the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.path == rhs.path }
    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// The typed `Adapter1` properties, plus the LEAdvertisingManager1 ones when the adapter has that interface.
    public struct Properties: Sendable, Equatable {
        /// The adapter object.
        public var path: ObjectPath
        /// `hci0`.
        public var name: String { String(path.elements.last ?? "") }
        /// `Address`.
        public var address: BluetoothAddress?
        /// `Alias`.
        public var alias: String?
        /// `Powered`.
        public var powered: Bool
        /// `Discovering`.
        public var discovering: Bool
        /// Whether the adapter carries `LEAdvertisingManager1`.
        public var canAdvertise: Bool
        /// Whether the adapter carries `GattManager1`.
        public var canServeGatt: Bool
        /// `LEAdvertisingManager1.SupportedInstances`: advertisements that can still be registered.
        public var supportedInstances: UInt8?
        /// `LEAdvertisingManager1.ActiveInstances`.
        public var activeInstances: UInt8?
        /// `LEAdvertisingManager1.SupportedIncludes`.
        public var supportedIncludes: [String]
        /// `LEAdvertisingManager1.SupportedCapabilities["MaxAdvLen"]` (BlueZ 5.62+): usable advertising bytes.
        public var maxAdvertisingLength: UInt8?
    }
}
