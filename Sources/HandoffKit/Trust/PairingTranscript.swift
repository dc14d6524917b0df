import FoundationEssentials

/// What both sides of a pairing agree on: ephemeral keys and nonces, and what follows from them.
struct PairingTranscript: Sendable {
    var initiatorKey: [UInt8] = []
    var responderKey: [UInt8] = []
    var initiatorNonce: [UInt8] = []
    var responderNonce: [UInt8] = []

    static let nonceLength = 16
    static let commitLength = 16

    /// The responder's commitment to its nonce, sent before it sees the initiator's nonce.
    static func commitment(responderKey: [UInt8], initiatorKey: [UInt8], responderNonce: [UInt8]) -> [UInt8] {
        HashLabel.pairingCommitment.digest(responderKey, initiatorKey, responderNonce, length: commitLength)
    }

    /// BLAKE2b of everything exchanged; binds the sealed offers to this exchange.
    var hash: [UInt8] {
        HashLabel.pairingTranscript.digest(initiatorKey, responderKey, initiatorNonce, responderNonce, length: 32)
    }

    /// The six-digit code both screens show.
    var confirmationCode: String {
        let h = hash
        let value = (UInt32(h[0]) << 24 | UInt32(h[1]) << 16 | UInt32(h[2]) << 8 | UInt32(h[3])) % 1_000_000
        let digits = String(value)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
