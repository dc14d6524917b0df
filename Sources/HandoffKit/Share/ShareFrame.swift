/// One value of the push (share) protocol, carried by the same transfer service as `TransferFrame` but with kinds of
/// its own (`0x30...0x3F` written by the sender, `0xB0...0xBF` notified by the receiver). Layouts: Docs/protocol.md §8.
///
/// The sender is the GATT client: it connects to the receiver's transfer service and writes the sealed stream; the
/// receiver answers with notifications.
enum ShareFrame: Sendable, Equatable {
    /// Sender → receiver: "I am `sender`, here is the header of the stream I want to push". `mac` is keyed with the
    /// pairwise push key of the two devices, so only that sender can make it and only that receiver can check it.
    case push(transferID: TransferID, sender: [UInt8], header: TransferHeader, mac: [UInt8])
    /// Sender → receiver: bytes of the sealed stream starting at `offset`.
    case data(transferID: TransferID, offset: UInt32, bytes: [UInt8])
    /// Sender → receiver: the answer to the receiver's CHALLENGE, `ShareKeys.proofMAC`. Only a PROOF opens or moves
    /// a push session: a PUSH alone changes nothing.
    case proof(transferID: TransferID, mac: [UInt8])
    /// Receiver → sender: the PUSH authenticated; prove it is fresh by answering this `challenge`.
    case challenge(transferID: TransferID, challenge: [UInt8])
    /// Receiver → sender: send from `offset` on (0 for a new push; the last byte held when resuming or after a gap).
    case accept(transferID: TransferID, offset: UInt32)
    /// Receiver → sender: the item is stored in the inbox; `mac` proves the receiver opened the stream.
    case done(transferID: TransferID, mac: [UInt8])
    /// Receiver → sender: the push was refused or failed (`HandoffError.Code`, a short UTF-8 reason). `tag` binds it
    /// to the push (`Gate`): `ShareKeys.errorTag` once the sender is authenticated, else the refused frame's digest.
    case error(transferID: TransferID, code: Int, tag: [UInt8], message: String)

    /// Bytes a DATA frame spends before its payload bytes.
    static let dataOverhead = 14
    /// Bytes an ERROR frame spends before its message.
    static let errorOverhead = 28
    /// Length of a CHALLENGE's random challenge.
    static let challengeLength = 16

    enum Kind: UInt8 {
        case push = 0x30, data = 0x31, proof = 0x32
        case accept = 0xB0, done = 0xB1, error = 0xB2, challenge = 0xB3
    }

    /// Whether `bytes` is a share frame of this version (so the transfer service routes it here).
    static func claims(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == WireProtocol.version && Kind(rawValue: bytes[1]) != nil
    }

    /// The frame as bytes.
    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(WireProtocol.version)
        switch self {
        case .push(let id, let sender, let header, let mac):
            w.u8(Kind.push.rawValue); w.raw(id.bytes); w.raw(sender); w.raw(header.encoded); w.raw(mac)
        case .data(let id, let offset, let bytes):
            w.u8(Kind.data.rawValue); w.raw(id.bytes); w.u32(offset); w.raw(bytes)
        case .accept(let id, let offset):
            w.u8(Kind.accept.rawValue); w.raw(id.bytes); w.u32(offset)
        case .done(let id, let mac):
            w.u8(Kind.done.rawValue); w.raw(id.bytes); w.raw(mac)
        case .error(let id, let code, let tag, let message):
            w.u8(Kind.error.rawValue); w.raw(id.bytes); w.u16(UInt16(clamping: code)); w.raw(tag); w.raw(message.utf8)
        case .proof(let id, let mac):
            w.u8(Kind.proof.rawValue); w.raw(id.bytes); w.raw(mac)
        case .challenge(let id, let challenge):
            w.u8(Kind.challenge.rawValue); w.raw(id.bytes); w.raw(challenge)
        }
        return w.bytes
    }

    /// The part of a PUSH its MAC covers (everything before the MAC).
    static func pushSignedPart(transferID: TransferID, sender: [UInt8], header: TransferHeader) -> [UInt8] {
        var w = ByteWriter()
        w.u8(WireProtocol.version); w.u8(Kind.push.rawValue)
        w.raw(transferID.bytes); w.raw(sender); w.raw(header.encoded)
        return w.bytes
    }

    /// Parses a frame; throws `protocolVersionMismatch` or `corruptPayload`, never traps.
    static func decode(_ bytes: [UInt8]) throws(HandoffError) -> ShareFrame {
        var r = ByteReader(bytes)
        guard let version = r.u8() else { throw malformed("empty frame") }
        guard version == WireProtocol.version else {
            throw HandoffError(.protocolVersionMismatch,
                               "the peer speaks wire protocol version \(version); this build speaks \(WireProtocol.version)")
        }
        guard let raw = r.u8(), let kind = Kind(rawValue: raw) else { throw malformed("not a share frame") }
        switch kind {
        case .push:
            guard let id = r.transferID(), let sender = r.take(16), let header = TransferHeader(reading: &r),
                  let mac = r.take(TransferFrame.macLength), r.remaining == 0, header.transferID == id else {
                throw malformed("bad push frame")
            }
            return .push(transferID: id, sender: sender, header: header, mac: mac)
        case .data:
            guard let id = r.transferID(), let offset = r.u32() else { throw malformed("bad data frame") }
            return .data(transferID: id, offset: offset, bytes: r.rest())
        case .accept:
            guard let id = r.transferID(), let offset = r.u32(), r.remaining == 0 else {
                throw malformed("bad accept frame")
            }
            return .accept(transferID: id, offset: offset)
        case .done:
            guard let id = r.transferID(), let mac = r.take(TransferFrame.macLength), r.remaining == 0 else {
                throw malformed("bad done frame")
            }
            return .done(transferID: id, mac: mac)
        case .error:
            guard let id = r.transferID(), let code = r.u16(), let tag = r.take(TransferFrame.macLength) else {
                throw malformed("bad error frame")
            }
            return .error(transferID: id, code: Int(code), tag: tag, message: String(decoding: r.rest(), as: UTF8.self))
        case .proof:
            guard let id = r.transferID(), let mac = r.take(TransferFrame.macLength), r.remaining == 0 else {
                throw malformed("bad proof frame")
            }
            return .proof(transferID: id, mac: mac)
        case .challenge:
            guard let id = r.transferID(), let challenge = r.take(challengeLength), r.remaining == 0 else {
                throw malformed("bad challenge frame")
            }
            return .challenge(transferID: id, challenge: challenge)
        }
    }

    private static func malformed(_ what: String) -> HandoffError {
        HandoffError(.corruptPayload, "received a malformed share frame (\(what))")
    }
}
