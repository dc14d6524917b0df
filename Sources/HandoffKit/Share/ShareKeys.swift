import FoundationEssentials

/// The keys of pushes from one device to another. They come from crypto_kx over the two devices' long-term
/// identity keys, not from the group key: only the sender and the receiver can compute them, so a push is
/// authenticated per device (another member of the group cannot pose as the sender), and a revoked device, gone
/// from the receiver's device list, is refused before its key is even computed.
///
///     pushKey     = BLAKE2b-32(key = kx(sender → receiver), "handoff.v1.push")
///     transferKey = BLAKE2b-32(key = kx(sender → receiver), "handoff.v1.share" ‖ 0x00 ‖ transferID)
struct ShareKeys: Sendable {
    private let pairwise: KeyedHash

    /// The keys for pushes from `store`'s device to `peer` (`sending`), or from `peer` to it. Nil when `peer`'s
    /// public key is unusable.
    init?(store: TrustStore, peer: TrustedDevice, sending: Bool) {
        guard let key = store.pairwiseKey(with: peer, sending: sending) else { return nil }
        pairwise = KeyedHash(key: key)
    }

    /// Authenticates PUSH frames.
    var pushKey: KeyedHash { pairwise.derive(.push) }

    /// Seals one push's records.
    func transferKey(_ transferID: TransferID) -> [UInt8] {
        pairwise.hash(.share, transferID.bytes)
    }

    /// The MAC of a PUSH.
    func pushMAC(transferID: TransferID, sender: UUID, header: TransferHeader) -> [UInt8] {
        pushKey.mac(signed: ShareFrame.pushSignedPart(transferID: transferID, sender: sender.bytes, header: header))
    }

    /// The sender's answer to the receiver's `challenge` for push `transferID` (PUSH-PROOF): fresh, so a recorded
    /// PUSH or proof replayed later proves nothing.
    func proofMAC(transferID: TransferID, challenge: [UInt8]) -> [UInt8] {
        pushKey.mac(.pushProof, transferID.bytes, challenge)
    }

    /// The tag of a PUSH-ERROR the receiver sends after it authenticated the sender.
    func errorTag(transferID: TransferID, code: Int, message: String) -> [UInt8] {
        pushKey.errorTag(.shareError, context: transferID.bytes, code: code, message: message)
    }

    /// The MAC of the receiver's DONE: it shows the sender that the receiver could open the whole stream.
    func doneMAC(_ transferID: TransferID) -> [UInt8] {
        KeyedHash(key: transferKey(transferID)).mac(.shareDone, transferID.bytes)
    }
}
