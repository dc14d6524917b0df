import FoundationEssentials

/// A new group key for one remaining device after a revocation, sealed to that device's public key.
public struct RekeyMessage: Codable, Sendable, Equatable {
    /// Sender (the revoking device).
    public let from: UUID
    /// Recipient.
    public let to: UUID
    /// New epoch.
    public let epoch: UInt32
    /// The revoked device.
    public let revoked: UUID
    /// XChaCha20-Poly1305 nonce (24 bytes).
    public let nonce: Data
    /// The new group key, sealed with a key both ends derive with crypto_kx from their long-term keys.
    public let sealedKey: Data

    /// Creates a message from its parts (normally `TrustStore.revoke(_:)` does this).
    public init(from: UUID, to: UUID, epoch: UInt32, revoked: UUID, nonce: Data, sealedKey: Data) {
        self.from = from
        self.to = to
        self.epoch = epoch
        self.revoked = revoked
        self.nonce = nonce
        self.sealedKey = sealedKey
    }
}
