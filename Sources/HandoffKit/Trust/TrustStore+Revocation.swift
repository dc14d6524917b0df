import FoundationEssentials

extension TrustStore {
    /// Revokes `deviceID`: removes it and replaces the group key (epoch + 1), so the revoked device can no longer
    /// read beacons or payloads, request transfers or inject activities. Returns one `RekeyMessage` per remaining
    /// device; deliver each (any channel will do: it is sealed and authenticated) and call `applyRekey(_:)` there.
    package mutating func revoke(_ deviceID: UUID) throws(HandoffError) -> [RekeyMessage] {
        guard device(deviceID) != nil else {
            throw HandoffError(.invalidTrustState, "device \(deviceID) is not in the trust list")
        }
        guard group.epoch < UInt32.max else {
            throw HandoffError(.invalidTrustState, "the group key's epoch is at its last value; pair the devices again")
        }
        devices.removeAll { $0.id == deviceID }
        let newGroup = try TrustGroup.generate(epoch: group.epoch + 1)
        group = newGroup
        return try devices.map { peer throws(HandoffError) in
            guard let key = pairwiseKey(with: peer, sending: true) else {
                throw HandoffError(.invalidTrustState, "device \(peer.name) has an unusable public key")
            }
            let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
            let sealed = Sodium.seal(Array(newGroup.key), additionalData: rekeyAD(from: identity.id, to: peer.id,
                                                                                    epoch: newGroup.epoch, revoked: deviceID),
                                     nonce: nonce, key: key)
            return RekeyMessage(from: identity.id, to: peer.id, epoch: newGroup.epoch, revoked: deviceID,
                                nonce: Data(nonce), sealedKey: Data(sealed))
        }
    }

    /// Applies a rekey sent by a trusted device: adopts the new group key and drops the revoked device.
    ///
    /// The rule (Docs/protocol.md §6, "Which rekey is taken"): the message is addressed to us and comes from a
    /// trusted device; its epoch is exactly ours + 1 (never a jump, never a wrap past `UInt32.max`), so a device
    /// cannot push us to an epoch no honest rekey can follow; it revokes neither its sender nor us; and it opens
    /// under the pairwise key of its sender.
    /// Throws `untrustedPeer` for an unknown sender, `invalidTrustState` for any other rule broken, and
    /// `corruptPayload` when the message fails authentication.
    package mutating func applyRekey(_ message: RekeyMessage) throws(HandoffError) {
        guard message.to == identity.id else {
            throw HandoffError(.invalidTrustState, "the rekey message is addressed to another device")
        }
        guard let sender = device(message.from) else {
            throw HandoffError(.untrustedPeer, "the rekey message comes from a device that is not trusted")
        }
        guard group.epoch < UInt32.max, message.epoch == group.epoch + 1 else {
            throw HandoffError(.invalidTrustState, "the rekey message's epoch \(message.epoch) does not follow the "
                                   + "current one (\(group.epoch))")
        }
        guard message.revoked != message.from, message.revoked != identity.id else {
            throw HandoffError(.invalidTrustState, "the rekey message revokes its sender or its recipient")
        }
        guard let key = pairwiseKey(with: sender, sending: false),
              let newKey = Sodium.open(Array(message.sealedKey),
                                       additionalData: rekeyAD(from: message.from, to: message.to, epoch: message.epoch,
                                                               revoked: message.revoked),
                                       nonce: Array(message.nonce), key: key), newKey.count == 32 else {
            throw HandoffError(.corruptPayload, "the rekey message failed authentication")
        }
        devices.removeAll { $0.id == message.revoked }
        group = TrustGroup(key: Data(newKey), epoch: message.epoch)
    }

    /// A key shared by this device and `peer` only, from crypto_kx over the long-term keys, for what this device
    /// sends `peer` (`sending`) or receives from it; nil when `peer`'s public key is unusable. The side with the
    /// smaller id plays the kx client, so the sender's transmit key is the receiver's receive key. Rekeys are sealed
    /// with it; pushes derive their keys from it (`ShareKeys`).
    func pairwiseKey(with peer: TrustedDevice, sending: Bool) -> [UInt8]? {
        let isClient = identity.id.uuidString < peer.id.uuidString
        guard let keys = Sodium.sessionKeys(isClient: isClient, publicKey: Array(identity.publicKey),
                                            secretKey: Array(identity.secretKey),
                                            peerPublicKey: Array(peer.publicKey)) else { return nil }
        return sending ? keys.transmit : keys.receive
    }

    private func rekeyAD(from: UUID, to: UUID, epoch: UInt32, revoked: UUID) -> [UInt8] {
        var w = ByteWriter()
        w.raw(Array("handoff.v1.rekey".utf8)); w.raw(from.bytes); w.raw(to.bytes); w.u32(epoch); w.raw(revoked.bytes)
        return w.bytes
    }
}
