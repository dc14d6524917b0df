import FoundationEssentials

/// This device: its stable id within the trust group, a display name and its long-term X25519 key pair.
/// The secret key is stored with the rest of the trust state; the daemon saves it with mode 0600.
public struct DeviceIdentity: Codable, Sendable, Equatable {
    /// Stable identifier; never sent in clear.
    public let id: UUID
    /// Name shown on the other devices ("Alice's laptop").
    public var name: String
    /// crypto_kx public key (32 bytes).
    public let publicKey: Data
    /// crypto_kx secret key (32 bytes).
    public let secretKey: Data

    /// A fresh identity with a random id and key pair.
    public static func generate(name: String) throws(HandoffError) -> DeviceIdentity {
        try Sodium.ensureInitialized()
        let pair = Sodium.keyExchangeKeyPair()
        return DeviceIdentity(id: UUID(), name: name, publicKey: Data(pair.publicKey), secretKey: Data(pair.secretKey))
    }

    /// This identity as other devices record it.
    public var asTrustedDevice: TrustedDevice {
        TrustedDevice(id: id, name: name, publicKey: publicKey, pairedAt: Date(timeIntervalSince1970: 0))
    }
}
