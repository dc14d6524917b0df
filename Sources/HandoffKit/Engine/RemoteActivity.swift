import FoundationEssentials

/// An activity a trusted peer is advertising, as recovered from its beacon.
public struct RemoteActivity: Sendable, Equatable, Identifiable {
    /// The advertising device.
    public var device: TrustedDevice
    /// The activity type, when it is one of ours (declared); nil when the beacon's type tag matches none.
    public var activityType: String?
    /// The beacon's sequence number.
    public var sequence: UInt32
    /// Where to connect to fetch it (the address the beacon came from). `continueActivity` connects where the
    /// device has since proved itself, if it moved (an address rotation, Docs/protocol.md "The gate").
    public var peer: PeerAddress
    /// Signal strength of the last beacon, if known.
    public var rssi: Int?
    /// When the beacon was received.
    public var seenAt: Date

    /// Keyed type tag from the beacon.
    var typeTag: [UInt8]

    /// One availability per device: a device offers one current activity.
    public var id: UUID { device.id }
}
