import FoundationEssentials

/// Encoding of pairing messages: `version ‖ kind ‖ body`.
enum PairingMessage {
    static let hello: UInt8 = 0x10
    static let commit: UInt8 = 0x90
    static let nonce: UInt8 = 0x11
    static let reveal: UInt8 = 0x91
    static let confirm: UInt8 = 0x12
    static let finish: UInt8 = 0x92
    /// The initiator's user rejected the code; the responder's state machine refuses it as unexpected.
    static let abort: UInt8 = 0x1F

    static func make(_ kind: UInt8, _ body: [UInt8]) -> [UInt8] { [WireProtocol.version, kind] + body }

    static func body(_ message: [UInt8], kind: UInt8, length: Int? = nil) throws(HandoffError) -> [UInt8] {
        guard message.count >= 2 else { throw failure("the pairing message is empty") }
        guard message[0] == WireProtocol.version else {
            throw HandoffError(.protocolVersionMismatch, "the other device pairs with protocol version \(message[0]); "
                                   + "this build speaks \(WireProtocol.version)")
        }
        guard message[1] == kind else { throw failure("unexpected pairing message (kind \(message[1]))") }
        let body = Array(message.dropFirst(2))
        if let length, body.count != length { throw failure("pairing message of the wrong length") }
        return body
    }

    static func seal(_ offer: PairingOffer, key: [UInt8], transcript: PairingTranscript,
                     kind: UInt8) throws(HandoffError) -> [UInt8] {
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let plain: [UInt8]
        do {
            plain = [UInt8](try JSONEncoder().encode(offer))
        } catch {
            throw HandoffError(.pairingFailed, "cannot encode this device's pairing offer", cause: error)
        }
        return make(kind, nonce + Sodium.seal(plain, additionalData: transcript.hash + [kind], nonce: nonce, key: key))
    }

    static func open(_ message: [UInt8], key: [UInt8], transcript: PairingTranscript, kind: UInt8) throws(HandoffError) -> PairingOffer {
        let body = try body(message, kind: kind)
        guard body.count > Sodium.aeadNonceLength,
              let plain = Sodium.open(Array(body.dropFirst(Sodium.aeadNonceLength)), additionalData: transcript.hash + [kind],
                                      nonce: Array(body.prefix(Sodium.aeadNonceLength)), key: key),
              let offer = try? JSONDecoder().decode(PairingOffer.self, from: Data(plain)),
              offer.group.key.count == 32, offer.device.publicKey.count == 32 else {
            throw failure("the other device's offer failed authentication (wrong code confirmed, or tampering)")
        }
        return offer
    }

    static func failure(_ message: String) -> HandoffError { HandoffError(.pairingFailed, message) }
}
