import FoundationEssentials

/// Keys derived from the group key with keyed BLAKE2b (`KeyedHash`), one label per purpose, so no key is ever used
/// for two jobs.
struct GroupKeys: Sendable {
    private let groupKey: KeyedHash

    init(_ group: TrustGroup) { groupKey = KeyedHash(key: Array(group.key)) }

    /// The beacon encryption and MAC keys of `device`.
    func beaconKeys(for device: UUID) -> (encryption: [UInt8], mac: [UInt8]) {
        let both = groupKey.hash(.beacon, device.bytes, length: 64)
        return (Array(both[0..<32]), Array(both[32..<64]))
    }

    /// The 4-byte tag that stands for `activityType` inside beacons (keyed: strangers cannot test guesses).
    func typeTag(for activityType: String) -> [UInt8] {
        Array(groupKey.derive(.typeTag).hash(Array(activityType.utf8), length: 16).prefix(4))
    }

    /// Key that authenticates transfer requests.
    private var requestKey: KeyedHash { groupKey.derive(.request) }

    /// The MAC of a transfer request for `sequence` with `nonce`, over the request's signed part: the client sends
    /// it and the source checks it (Docs/protocol.md, REQUEST).
    func requestMAC(sequence: UInt32, nonce: Nonce) -> [UInt8] {
        requestKey.mac(signed: TransferFrame.requestSignedPart(sequence: sequence, nonce: nonce))
    }

    /// The client's answer to the source's `challenge` for the request `nonce` (PROVE): fresh, so a recorded REQUEST
    /// or proof replayed later makes the source do nothing.
    func proofMAC(nonce: Nonce, challenge: [UInt8]) -> [UInt8] {
        requestKey.mac(.requestProof, nonce.bytes, challenge)
    }

    /// The tag of an ERROR the source sends about something it authenticated (a REQUEST with a valid MAC, a
    /// transfer it made): only a group member can make it, and it covers the context, the code and the message.
    func errorTag(context: ErrorContext, code: Int, message: String) -> [UInt8] {
        requestKey.errorTag(.error, context: context.bytes, code: code, message: message)
    }

    /// Key that seals one transfer's records.
    func transferKey(source: UUID, transferID: TransferID) -> [UInt8] {
        groupKey.hash(.transfer, source.bytes, transferID.bytes)
    }
}
