import FoundationEssentials

/// The device that starts pairing (the GATT client). A sans-I/O state machine: feed it the responder's messages,
/// send what it returns. Steps: `hello()` → `receiveCommit(_:)` → `receiveReveal(_:)` (code known) →
/// the user confirms the same code on both screens → `confirm()` → `receiveFinish(_:)` (new trust store).
package struct PairingInitiator: Sendable {
    private var store: TrustStore
    private let keyPair: (publicKey: [UInt8], secretKey: [UInt8])
    private let clock: any HandoffClock
    private var transcript = PairingTranscript()
    private var commitment: [UInt8] = []
    private var sessionKeys: (receive: [UInt8], transmit: [UInt8])?

    /// Starts a pairing for the device that owns `store`; the new peer's `pairedAt` is read from `clock`.
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
        transcript.initiatorKey = keyPair.publicKey
    }

    /// Message 1: the ephemeral public key.
    package func hello() -> [UInt8] { PairingMessage.make(PairingMessage.hello, keyPair.publicKey) }

    /// Takes message 2 (responder key and commitment); returns message 3 (our nonce).
    package mutating func receiveCommit(_ message: [UInt8]) throws(HandoffError) -> [UInt8] {
        let body = try PairingMessage.body(message, kind: PairingMessage.commit, length: 32 + PairingTranscript.commitLength)
        transcript.responderKey = Array(body.prefix(32))
        commitment = Array(body.suffix(PairingTranscript.commitLength))
        guard let keys = Sodium.sessionKeys(isClient: true, publicKey: keyPair.publicKey, secretKey: keyPair.secretKey,
                                            peerPublicKey: transcript.responderKey) else {
            throw PairingMessage.failure("the other device sent an unusable public key")
        }
        sessionKeys = keys
        transcript.initiatorNonce = Sodium.randomBytes(PairingTranscript.nonceLength)
        return PairingMessage.make(PairingMessage.nonce, transcript.initiatorNonce)
    }

    /// Takes message 4 (the responder's nonce), checks it against the commitment and returns the code to show.
    package mutating func receiveReveal(_ message: [UInt8]) throws(HandoffError) -> String {
        let nonce = try PairingMessage.body(message, kind: PairingMessage.reveal, length: PairingTranscript.nonceLength)
        let expected = PairingTranscript.commitment(responderKey: transcript.responderKey,
                                                    initiatorKey: transcript.initiatorKey, responderNonce: nonce)
        guard Sodium.constantTimeEqual(expected, commitment) else {
            throw PairingMessage.failure("the other device's nonce does not match its commitment; someone may be "
                                             + "interfering, pair again")
        }
        transcript.responderNonce = nonce
        return transcript.confirmationCode
    }

    /// The code, once `receiveReveal` succeeded.
    package var confirmationCode: String? { transcript.responderNonce.isEmpty ? nil : transcript.confirmationCode }

    /// Message 5, after the user confirmed the code: our identity, group and roster, sealed.
    package func confirm() throws(HandoffError) -> [UInt8] {
        guard let sessionKeys, !transcript.responderNonce.isEmpty else {
            throw PairingMessage.failure("confirm() called before the code was shown")
        }
        let offer = PairingOffer(device: store.identity.asTrustedDevice, group: store.group, devices: store.devices)
        return try PairingMessage.seal(offer, key: sessionKeys.transmit, transcript: transcript,
                                       kind: PairingMessage.confirm)
    }

    /// Takes message 6 and returns the updated trust store (to save and hand to the engine).
    package func receiveFinish(_ message: [UInt8]) throws(HandoffError) -> TrustStore {
        guard let sessionKeys else { throw PairingMessage.failure("receiveFinish() called out of order") }
        let offer = try PairingMessage.open(message, key: sessionKeys.receive, transcript: transcript,
                                            kind: PairingMessage.finish)
        var updated = store
        var peer = offer.device
        peer.pairedAt = clock.date
        updated.adopt(group: offer.group, devices: offer.devices + [peer])
        return updated
    }
}
