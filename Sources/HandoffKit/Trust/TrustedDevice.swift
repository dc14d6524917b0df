import FoundationEssentials

/// Another device of the same user, admitted by pairing.
public struct TrustedDevice: Codable, Sendable, Equatable, Identifiable {
    /// The device's stable id.
    public let id: UUID
    /// Its display name.
    public var name: String
    /// Its crypto_kx public key (32 bytes), used to send it a new group key after a revocation.
    public let publicKey: Data
    /// When it was admitted.
    public var pairedAt: Date

    /// Creates a record.
    public init(id: UUID, name: String, publicKey: Data, pairedAt: Date) {
        self.id = id
        self.name = name
        self.publicKey = publicKey
        self.pairedAt = pairedAt
    }
}
