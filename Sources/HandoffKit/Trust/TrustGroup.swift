import FoundationEssentials

/// The symmetric key shared by all devices of one user, and its epoch (incremented by every revocation).
public struct TrustGroup: Codable, Sendable, Equatable {
    /// 32 random bytes; every beacon, request and transfer key is derived from it.
    public let key: Data
    /// Starts at 1; a re-key after revocation increments it.
    public let epoch: UInt32

    /// A group with a fresh random key.
    public static func generate(epoch: UInt32 = 1) throws(HandoffError) -> TrustGroup {
        try Sodium.ensureInitialized()
        return TrustGroup(key: Data(Sodium.randomBytes(Sodium.keyLength)), epoch: epoch)
    }

    /// Creates a group from stored values.
    public init(key: Data, epoch: UInt32) {
        self.key = key
        self.epoch = epoch
    }
}
