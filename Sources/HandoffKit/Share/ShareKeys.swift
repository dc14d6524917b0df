import FoundationEssentials

/// The keys of pushes from one device to another. They come from crypto_kx over the two devices' long-term
/// identity keys, not from the group key: only the sender and the receiver can compute them, so a push is
/// authenticated per device (another member of the group cannot pose as the sender), and a revoked device, gone
/// from the receiver's device list, is refused before its key is even computed.
///
///     pushKey     = BLAKE2b-32(key = kx(sender → receiver), "handoff.v1.push")
///     transferKey = BLAKE2b-32(key = kx(sender → receiver), "handoff.v1.share" ‖ 0x00 ‖ transferID)
struct ShareKeys: Sendable {
    private let pairwise: [UInt8]

    /// The keys for pushes from `store`'s device to `peer` (`sending`), or from `peer` to it. Nil when `peer`'s
    /// public key is unusable.
    init?(store: TrustStore, peer: TrustedDevice, sending: Bool) {
        let isClient = store.identity.id.uuidString < peer.id.uuidString
        guard let keys = Sodium.sessionKeys(isClient: isClient, publicKey: Array(store.identity.publicKey),
                                            secretKey: Array(store.identity.secretKey),
                                            peerPublicKey: Array(peer.publicKey)) else { return nil }
        // The sender's transmit key is the receiver's receive key.
        pairwise = sending ? keys.transmit : keys.receive
    }

    /// Authenticates PUSH frames.
    var pushKey: [UInt8] { Sodium.genericHash(Array("handoff.v1.push".utf8), key: pairwise, length: 32) }

    /// Seals one push's records.
    func transferKey(_ transferID: TransferID) -> [UInt8] {
        Sodium.genericHash(Array("handoff.v1.share".utf8) + [0] + transferID.bytes, key: pairwise, length: 32)
    }

    /// The MAC of a PUSH.
    func pushMAC(transferID: TransferID, sender: UUID, header: TransferHeader) -> [UInt8] {
        Sodium.genericHash(ShareFrame.pushSignedPart(transferID: transferID, sender: sender.bytes, header: header),
                           key: pushKey, length: TransferFrame.macLength)
    }

    /// The sender's answer to the receiver's `challenge` for push `transferID` (PUSH-PROOF): fresh, so a recorded
    /// PUSH or proof replayed later proves nothing.
    func proofMAC(transferID: TransferID, challenge: [UInt8]) -> [UInt8] {
        Sodium.genericHash(Array("handoff.v2.push.proof".utf8) + [0] + transferID.bytes + challenge, key: pushKey,
                           length: TransferFrame.macLength)
    }

    /// The tag of a PUSH-ERROR the receiver sends after it authenticated the sender.
    func errorTag(transferID: TransferID, code: Int, message: String) -> [UInt8] {
        var w = ByteWriter()
        w.raw(Array("handoff.v2.share.error".utf8)); w.u8(0); w.raw(transferID.bytes); w.u16(UInt16(clamping: code))
        w.raw(message.utf8)
        return Sodium.genericHash(w.bytes, key: pushKey, length: TransferFrame.macLength)
    }

    /// The MAC of the receiver's DONE: it shows the sender that the receiver could open the whole stream.
    func doneMAC(_ transferID: TransferID) -> [UInt8] {
        Sodium.genericHash(Array("handoff.v1.share.done".utf8) + transferID.bytes, key: transferKey(transferID),
                           length: TransferFrame.macLength)
    }
}
