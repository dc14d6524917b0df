import FoundationEssentials

/// A new group key for one remaining device after a revocation, sealed to that device's public key.
package struct RekeyMessage: Codable, Sendable, Equatable {
    /// Sender (the revoking device).
    package let from: UUID
    /// Recipient.
    package let to: UUID
    /// New epoch.
    package let epoch: UInt32
    /// The revoked device.
    package let revoked: UUID
    /// XChaCha20-Poly1305 nonce (24 bytes).
    package let nonce: Data
    /// The new group key, sealed with a key both ends derive with crypto_kx from their long-term keys.
    package let sealedKey: Data

    /// Creates a message from its parts (normally `TrustStore.revoke(_:)` does this).
    package init(from: UUID, to: UUID, epoch: UInt32, revoked: UUID, nonce: Data, sealedKey: Data) {
        self.from = from
        self.to = to
        self.epoch = epoch
        self.revoked = revoked
        self.nonce = nonce
        self.sealedKey = sealedKey
    }
}
