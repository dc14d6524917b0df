/// What the daemon keeps across restarts besides the trust store (`state.json`).
public struct DaemonState: Codable, Sendable, Equatable {
    /// The owner as older versions recorded it, after the trust store. Read once, moved to `owner.json`
    /// (``Ownership``), and then cleared; never written anew.
    public var ownerUID: UInt32?
    /// The last beacon sequence advertised; the next run starts above it so sequences never repeat.
    public var lastSequence: UInt32?

    /// Creates a state.
    public init(ownerUID: UInt32? = nil, lastSequence: UInt32? = nil) {
        self.ownerUID = ownerUID
        self.lastSequence = lastSequence
    }
}
