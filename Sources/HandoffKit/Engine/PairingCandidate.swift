/// A nearby device in pairing mode (`HandoffEngine.acceptPairing`), found by `HandoffEngine.pairingCandidates()`.
public struct PairingCandidate: Sendable, Equatable {
    /// The name it advertises (at most 16 UTF-8 bytes).
    public var name: String
    /// Where to connect (`HandoffEngine.pair(with:confirm:)`).
    public var peer: PeerAddress
    /// Signal strength, if known.
    public var rssi: Int?
}
