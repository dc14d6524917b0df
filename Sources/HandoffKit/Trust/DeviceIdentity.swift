import Foundation

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
    public static func generate(name: String) throws -> DeviceIdentity {
        try Sodium.ensureInitialized()
        let pair = Sodium.keyExchangeKeyPair()
        return DeviceIdentity(id: UUID(), name: name, publicKey: Data(pair.publicKey), secretKey: Data(pair.secretKey))
    }

    /// This identity as other devices record it.
    public var asTrustedDevice: TrustedDevice {
        TrustedDevice(id: id, name: name, publicKey: publicKey, pairedAt: Date(timeIntervalSince1970: 0))
    }
}

extension UUID {
    /// The 16 bytes of the UUID.
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }

    /// A UUID from 16 bytes; nil otherwise.
    init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        let t = (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                 bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
        self.init(uuid: t)
    }
}
