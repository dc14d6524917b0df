/// A paired device, as listed by `handoff devices --json`.
///
/// JSON: `{"id":"…","inRange":true,"lastSeenSecondsAgo":3,"name":"laptop"}`; `lastSeenSecondsAgo` is absent
/// when the device was never seen since pairing.
public struct DeviceInfo: Sendable, Equatable, Codable {
    /// A stable identifier (its identity key's fingerprint), accepted by `handoff unpair`.
    public var id: String
    /// The device's name.
    public var name: String
    /// Whether it was seen recently enough to exchange activities.
    public var inRange: Bool
    /// Seconds since it was last seen, if ever.
    public var lastSeenSecondsAgo: Double?

    /// Creates a device description.
    public init(id: String, name: String, inRange: Bool, lastSeenSecondsAgo: Double?) {
        self.id = id
        self.name = name
        self.inRange = inRange
        self.lastSeenSecondsAgo = lastSeenSecondsAgo
    }
}
