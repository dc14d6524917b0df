/// A peer's address as the radio knows it (a BLE address such as "AA:BB:…", or a BlueZ device path).
/// With LE privacy it rotates; HandoffKit never uses it as an identity.
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address text.
    public let rawValue: String
    /// Wraps an address.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The address text.
    public var description: String { rawValue }
}

/// One received advertisement carrying a HandoffKit beacon.
public struct ScanEvent: Sendable, Equatable {
    /// Who advertised.
    public var peer: PeerAddress
    /// The beacon bytes (the ManufacturerData value for `WireProtocol.manufacturerID`).
    public var beacon: [UInt8]
    /// Received signal strength, if known.
    public var rssi: Int?

    /// Creates an event.
    public init(peer: PeerAddress, beacon: [UInt8], rssi: Int? = nil) {
        self.peer = peer
        self.beacon = beacon
        self.rssi = rssi
    }
}

/// A value a central wrote to the request characteristic.
public struct IncomingWrite: Sendable, Equatable {
    /// The writing central.
    public var central: PeerAddress
    /// The value.
    public var value: [UInt8]
    /// That central's ATT MTU (BlueZ passes it in WriteValue's options).
    public var mtu: Int

    /// Creates a write.
    public init(central: PeerAddress, value: [UInt8], mtu: Int) {
        self.central = central
        self.value = value
        self.mtu = mtu
    }
}

/// Failures a radio reports; the engine maps them to `HandoffError`s.
public struct RadioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The peer cannot be reached.
        case unreachable
        /// The link went down.
        case disconnected
        /// A value exceeded the MTU or 512 bytes.
        case valueTooLong
        /// Anything else the stack reported.
        case failed
    }
    /// The kind.
    public var kind: Kind
    /// A clear message.
    public var message: String
    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    /// The message.
    public var description: String { "radio: \(message)" }
}
