import FoundationEssentials

/// Keys derived from the group key with keyed BLAKE2b (crypto_generichash), one label per purpose,
/// so no key is ever used for two jobs.
struct GroupKeys: Sendable {
    private let groupKey: [UInt8]

    init(_ group: TrustGroup) { groupKey = Array(group.key) }

    private func derive(_ label: String, _ context: [UInt8] = [], length: Int = 32) -> [UInt8] {
        Sodium.genericHash(Array("handoff.v1.\(label)".utf8) + [0] + context, key: groupKey, length: length)
    }

    /// The beacon encryption and MAC keys of `device`.
    func beaconKeys(for device: UUID) -> (encryption: [UInt8], mac: [UInt8]) {
        let both = derive("beacon", device.bytes, length: 64)
        return (Array(both[0..<32]), Array(both[32..<64]))
    }

    /// The 4-byte tag that stands for `activityType` inside beacons (keyed: strangers cannot test guesses).
    func typeTag(for activityType: String) -> [UInt8] {
        Array(Sodium.genericHash(Array(activityType.utf8), key: derive("type"), length: 16).prefix(4))
    }

    /// Key that authenticates transfer requests.
    private var requestKey: [UInt8] { derive("request") }

    /// The MAC of a transfer request for `sequence` with `nonce`, over the request's signed part: the client sends
    /// it and the source checks it (Docs/protocol.md, REQUEST).
    func requestMAC(sequence: UInt32, nonce: Nonce) -> [UInt8] {
        Sodium.genericHash(TransferFrame.requestSignedPart(sequence: sequence, nonce: nonce), key: requestKey,
                           length: TransferFrame.macLength)
    }

    /// The client's answer to the source's `challenge` for the request `nonce` (PROVE): fresh, so a recorded REQUEST
    /// or proof replayed later makes the source do nothing.
    func proofMAC(nonce: Nonce, challenge: [UInt8]) -> [UInt8] {
        Sodium.genericHash(Array("handoff.v2.request.proof".utf8) + [0] + nonce.bytes + challenge, key: requestKey,
                           length: TransferFrame.macLength)
    }

    /// The tag of an ERROR the source sends about something it authenticated (a REQUEST with a valid MAC, a
    /// transfer it made): only a group member can make it, and it covers the context, the code and the message.
    func errorTag(context: ErrorContext, code: Int, message: String) -> [UInt8] {
        var w = ByteWriter()
        w.raw(Array("handoff.v2.error".utf8)); w.u8(0); w.raw(context.bytes); w.u16(UInt16(clamping: code))
        w.raw(message.utf8)
        return Sodium.genericHash(w.bytes, key: requestKey, length: TransferFrame.macLength)
    }

    /// Key that seals one transfer's records.
    func transferKey(source: UUID, transferID: TransferID) -> [UInt8] {
        derive("transfer", source.bytes + transferID.bytes)
    }
}
