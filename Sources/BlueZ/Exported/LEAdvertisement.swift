import FoundationEssentials

/// What we advertise: the properties of an exported `org.bluez.LEAdvertisement1` (doc/org.bluez.LEAdvertisement.rst).
///
/// A property left nil or empty is not exported, and bluetoothd then leaves it out of the advertising data.
/// Register it with ``BlueZ/register(_:on:)``; to change what is on the air, call
/// ``AdvertisementRegistration/update(_:)``.
public struct LEAdvertisement: Sendable, Equatable {
    /// `Type`: `peripheral` (connectable) or `broadcast`.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        /// The string BlueZ expects.
        public let rawValue: String
        /// Wraps a type string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Connectable, undirected advertising.
        public static let peripheral = Kind(rawValue: "peripheral")
        /// Non-connectable advertising.
        public static let broadcast = Kind(rawValue: "broadcast")
    }

    /// `Type`.
    public var type: Kind
    /// `ServiceUUIDs` (`as`).
    public var serviceUUIDs: [BluetoothUUID]
    /// `ManufacturerData` (`a{qv}`, each value an `ay`), keyed by company identifier.
    public var manufacturerData: [UInt16: Data]
    /// `ServiceData` (`a{sv}`, each value an `ay`), keyed by service UUID.
    public var serviceData: [BluetoothUUID: Data]
    /// `Includes` (`as`): `tx-power`, `appearance`, `local-name`; see LEAdvertisingManager1.SupportedIncludes.
    public var includes: [String]
    /// `LocalName`.
    public var localName: String?
    /// `Discoverable`: sets the LE General Discoverable flag.
    public var discoverable: Bool?
    /// `MinInterval` in milliseconds (BlueZ 5.65+, experimental before).
    public var minInterval: UInt32?
    /// `MaxInterval` in milliseconds (BlueZ 5.65+, experimental before).
    public var maxInterval: UInt32?
    /// `Timeout` in seconds: bluetoothd releases the advertisement afterwards.
    public var timeout: UInt16?
    /// `Duration` in seconds, when several advertisements rotate.
    public var duration: UInt16?

    /// An advertisement; everything but the type is optional.
    public init(
        type: Kind = .peripheral, serviceUUIDs: [BluetoothUUID] = [], manufacturerData: [UInt16: Data] = [:],
        serviceData: [BluetoothUUID: Data] = [:], includes: [String] = [], localName: String? = nil,
        discoverable: Bool? = nil, minInterval: UInt32? = nil, maxInterval: UInt32? = nil,
        timeout: UInt16? = nil, duration: UInt16? = nil
    ) {
        self.type = type
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.includes = includes
        self.localName = localName
        self.discoverable = discoverable
        self.minInterval = minInterval
        self.maxInterval = maxInterval
        self.timeout = timeout
        self.duration = duration
    }
}
