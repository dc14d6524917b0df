import FoundationEssentials

/// The device that answers pairing (the GATT server). Steps: `receiveHello(_:)` → `receiveNonce(_:)` (code known)
/// → the user confirms on both screens → `receiveConfirm(_:)` returns message 6 and the new trust store.
package struct PairingResponder: Sendable {
    private var store: TrustStore
    private let keyPair: (publicKey: [UInt8], secretKey: [UInt8])
    private let clock: any HandoffClock
    private var transcript = PairingTranscript()
    private var sessionKeys: (receive: [UInt8], transmit: [UInt8])?

    /// Answers a pairing for the device that owns `store`; the new peer's `pairedAt` is read from `clock`.
    package init(store: TrustStore, clock: any HandoffClock = RealClock()) throws(HandoffError) {
        try Sodium.ensureInitialized()
        try self.init(store: store, clock: clock, keyPair: Sodium.keyExchangeKeyPair())
    }

    /// The same with a given ephemeral key pair (the fuzz target's fixed keys, so it does no key generation per
    /// input); production always takes the other initializer's fresh pair.
    init(store: TrustStore, clock: any HandoffClock,
         keyPair: (publicKey: [UInt8], secretKey: [UInt8])) throws(HandoffError) {
        try Sodium.ensureInitialized()
        self.store = store
        self.clock = clock
        self.keyPair = keyPair
        transcript.responderKey = keyPair.publicKey
        transcript.responderNonce = Sodium.randomBytes(PairingTranscript.nonceLength)
    }

    /// Takes message 1; returns message 2 (our key and a commitment to our nonce).
    package mutating func receiveHello(_ message: [UInt8]) throws(HandoffError) -> [UInt8] {
        transcript.initiatorKey = try PairingMessage.body(message, kind: PairingMessage.hello, length: 32)
        guard let keys = Sodium.sessionKeys(isClient: false, publicKey: keyPair.publicKey, secretKey: keyPair.secretKey,
                                            peerPublicKey: transcript.initiatorKey) else {
            throw PairingMessage.failure("the other device sent an unusable public key")
        }
        sessionKeys = keys
        let commit = PairingTranscript.commitment(responderKey: keyPair.publicKey, initiatorKey: transcript.initiatorKey,
                                                  responderNonce: transcript.responderNonce)
        return PairingMessage.make(PairingMessage.commit, keyPair.publicKey + commit)
    }

    /// Takes message 3 (the initiator's nonce); returns message 4 (our nonce). The code is then known.
    package mutating func receiveNonce(_ message: [UInt8]) throws(HandoffError) -> [UInt8] {
        guard sessionKeys != nil else { throw PairingMessage.failure("receiveNonce() called out of order") }
        transcript.initiatorNonce = try PairingMessage.body(message, kind: PairingMessage.nonce,
                                                            length: PairingTranscript.nonceLength)
        return PairingMessage.make(PairingMessage.reveal, transcript.responderNonce)
    }

    /// The code, once `receiveNonce` succeeded.
    package var confirmationCode: String? { transcript.initiatorNonce.isEmpty ? nil : transcript.confirmationCode }

    /// Takes message 5 after the user confirmed the code; returns message 6 and the updated trust store.
    /// The device that is alone joins the other's group; two devices already in different groups cannot pair.
    package func receiveConfirm(_ message: [UInt8]) throws(HandoffError) -> (reply: [UInt8], store: TrustStore) {
        guard let sessionKeys, !transcript.initiatorNonce.isEmpty else {
            throw PairingMessage.failure("receiveConfirm() called out of order")
        }
        let offer = try PairingMessage.open(message, key: sessionKeys.receive, transcript: transcript,
                                            kind: PairingMessage.confirm)
        let group: TrustGroup
        if offer.devices.isEmpty || offer.group == store.group {
            group = store.group
        } else if store.devices.isEmpty {
            group = offer.group
        } else {
            throw PairingMessage.failure("both devices already belong to different groups; revoke one device's "
                                             + "group members first")
        }
        var peer = offer.device
        peer.pairedAt = clock.date
        var updated = store
        updated.adopt(group: group, devices: store.devices + offer.devices + [peer])
        let roster = updated.devices + [updated.identity.asTrustedDevice]
        let reply = PairingOffer(device: store.identity.asTrustedDevice, group: group,
                                 devices: roster.filter { $0.id != offer.device.id })
        return (try PairingMessage.seal(reply, key: sessionKeys.transmit, transcript: transcript,
                                        kind: PairingMessage.finish), updated)
    }
}
