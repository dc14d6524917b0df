/// One value written to the request characteristic or notified on the data characteristic.
/// Every frame starts with the wire version and a kind byte; layouts are in Docs/protocol.md.
enum TransferFrame: Sendable, Equatable {
    /// Client → source: send me the activity advertised at `sequence`. `mac` authenticates it with the group key.
    case request(sequence: UInt32, nonce: Nonce, mac: [UInt8])
    /// Client → source: the answer to the source's CHALLENGE for the request `nonce`, `GroupKeys.proofMAC`. Only a
    /// proof makes the source save and seal the activity: a REQUEST alone changes nothing but its challenge.
    case prove(nonce: Nonce, mac: [UInt8])
    /// Client → source: stream bytes `from..<to` of transfer `transferID`'s sealed stream.
    case fetch(transferID: TransferID, from: UInt32, to: UInt32)
    /// Client → source: transfer complete and accepted; `mac` proves knowledge of the transfer key.
    case done(transferID: TransferID, mac: [UInt8])
    /// Client → source: a DONE that asks something of the source (``ContinuationRequests``, never empty): one byte
    /// more, and `mac` covers it too. A plain DONE always follows it: a source older than requests drops this one
    /// as malformed and finishes at that one; a newer one has finished at this one and finds nothing at that.
    case doneAsking(transferID: TransferID, requests: UInt8, mac: [UInt8])
    /// Source → client: the request `nonce` authenticated; prove it is fresh by answering `challenge`.
    case challenge(nonce: Nonce, challenge: [UInt8])
    /// Source → client: the transfer's header, answering the request with `requestNonce`.
    case open(TransferHeader, requestNonce: Nonce)
    /// Source → client: bytes of the sealed stream starting at `offset`.
    case data(transferID: TransferID, offset: UInt32, bytes: [UInt8])
    /// Source → client: the request, transfer or session identified by `context` failed with `code`. `tag` binds it
    /// to one session (`Gate`): the MAC of the group's error key when the source authenticated what it answers, or
    /// the digest of the refused frame when it could not; a client acts on no other ERROR.
    case error(context: ErrorContext, code: Int, tag: [UInt8], message: String)
    /// Either way: fragment `index` of `count` of a pairing message of session `session`.
    case pair(session: Nonce, index: UInt8, count: UInt8, chunk: [UInt8], fromServer: Bool)
    /// Client → source: fragment `index` of `count` of a JSON `RekeyMessage` (delivery after a revocation).
    case rekey(session: Nonce, index: UInt8, count: UInt8, chunk: [UInt8])
    /// Source → client: the rekey of `session` was applied.
    case rekeyApplied(session: Nonce)

    static let macLength = 16
    /// Bytes a data frame spends before its payload bytes.
    static let dataOverhead = 14
    /// Bytes a pairing frame spends before its chunk.
    static let pairOverhead = 12
    /// Bytes an ERROR frame spends before its message.
    static let errorOverhead = 28
    /// Length of a CHALLENGE's random challenge.
    static let challengeLength = 16

    enum Kind: UInt8 {
        case request = 0x01, fetch = 0x02, done = 0x03, prove = 0x04, pairFromClient = 0x20, rekey = 0x21
        case open = 0x81, data = 0x82, error = 0x83, challenge = 0x84, pairFromServer = 0xA0, rekeyApplied = 0xA1
    }

    /// The frame as bytes, with `version` (the current one unless a test says otherwise) first.
    func encoded(version: UInt8 = WireProtocol.version) -> [UInt8] {
        var w = ByteWriter()
        w.u8(version)
        switch self {
        case .request(let sequence, let nonce, let mac):
            w.u8(Kind.request.rawValue); w.u32(sequence); w.raw(nonce.bytes); w.raw(mac)
        case .fetch(let id, let from, let to):
            w.u8(Kind.fetch.rawValue); w.raw(id.bytes); w.u32(from); w.u32(to)
        case .done(let id, let mac):
            w.u8(Kind.done.rawValue); w.raw(id.bytes); w.raw(mac)
        case .doneAsking(let id, let requests, let mac):
            w.u8(Kind.done.rawValue); w.raw(id.bytes); w.raw(mac); w.u8(requests)
        case .prove(let nonce, let mac):
            w.u8(Kind.prove.rawValue); w.raw(nonce.bytes); w.raw(mac)
        case .challenge(let nonce, let challenge):
            w.u8(Kind.challenge.rawValue); w.raw(nonce.bytes); w.raw(challenge)
        case .open(let header, let nonce):
            w.u8(Kind.open.rawValue); w.raw(nonce.bytes); w.raw(header.encoded)
        case .data(let id, let offset, let bytes):
            w.u8(Kind.data.rawValue); w.raw(id.bytes); w.u32(offset); w.raw(bytes)
        case .error(let context, let code, let tag, let message):
            w.u8(Kind.error.rawValue); w.raw(context.bytes); w.u16(UInt16(clamping: code)); w.raw(tag)
            w.raw(message.utf8)
        case .pair(let session, let index, let count, let chunk, let fromServer):
            w.u8(fromServer ? Kind.pairFromServer.rawValue : Kind.pairFromClient.rawValue)
            w.raw(session.bytes); w.u8(index); w.u8(count); w.raw(chunk)
        case .rekey(let session, let index, let count, let chunk):
            w.u8(Kind.rekey.rawValue); w.raw(session.bytes); w.u8(index); w.u8(count); w.raw(chunk)
        case .rekeyApplied(let session):
            w.u8(Kind.rekeyApplied.rawValue); w.raw(session.bytes)
        }
        return w.bytes
    }

    /// The signed part of a request (everything before its MAC).
    static func requestSignedPart(sequence: UInt32, nonce: Nonce) -> [UInt8] {
        var w = ByteWriter()
        w.u8(WireProtocol.version); w.u8(Kind.request.rawValue); w.u32(sequence); w.raw(nonce.bytes)
        return w.bytes
    }

    /// Parses a frame. Throws `protocolVersionMismatch` for another version and `corruptPayload` for anything
    /// malformed; never traps.
    static func decode(_ bytes: [UInt8]) throws(HandoffError) -> TransferFrame {
        var r = ByteReader(bytes)
        guard let version = r.u8() else { throw malformed("empty frame") }
        guard version == WireProtocol.version else {
            throw HandoffError(.protocolVersionMismatch,
                               "the peer speaks wire protocol version \(version); this build speaks \(WireProtocol.version)")
        }
        guard let rawKind = r.u8(), let kind = Kind(rawValue: rawKind) else { throw malformed("unknown frame kind") }
        switch kind {
        case .request:
            guard let s = r.u32(), let n = r.nonce(), let m = r.take(macLength), r.remaining == 0 else {
                throw malformed("bad request frame")
            }
            return .request(sequence: s, nonce: n, mac: m)
        case .fetch:
            guard let id = r.transferID(), let from = r.u32(), let to = r.u32(), r.remaining == 0, from <= to
            else { throw malformed("bad fetch frame") }
            return .fetch(transferID: id, from: from, to: to)
        case .done:
            guard let id = r.transferID(), let m = r.take(macLength) else { throw malformed("bad done frame") }
            if r.remaining == 0 { return .done(transferID: id, mac: m) }
            guard let requests = r.u8(), requests != 0, r.remaining == 0 else { throw malformed("bad done frame") }
            return .doneAsking(transferID: id, requests: requests, mac: m)
        case .prove:
            guard let n = r.nonce(), let m = r.take(macLength), r.remaining == 0 else { throw malformed("bad prove frame") }
            return .prove(nonce: n, mac: m)
        case .challenge:
            guard let n = r.nonce(), let c = r.take(challengeLength), r.remaining == 0 else {
                throw malformed("bad challenge frame")
            }
            return .challenge(nonce: n, challenge: c)
        case .open:
            guard let n = r.nonce(), let header = TransferHeader(reading: &r), r.remaining == 0 else {
                throw malformed("bad open frame")
            }
            return .open(header, requestNonce: n)
        case .data:
            guard let id = r.transferID(), let offset = r.u32() else { throw malformed("bad data frame") }
            return .data(transferID: id, offset: offset, bytes: r.rest())
        case .error:
            guard let context = r.errorContext(), let code = r.u16(), let tag = r.take(macLength) else {
                throw malformed("bad error frame")
            }
            return .error(context: context, code: Int(code), tag: tag,
                          message: String(decoding: r.rest(), as: UTF8.self))
        case .pairFromClient, .pairFromServer:
            guard let session = r.nonce(), let index = r.u8(), let count = r.u8(), index < count else {
                throw malformed("bad pairing frame")
            }
            return .pair(session: session, index: index, count: count, chunk: r.rest(), fromServer: kind == .pairFromServer)
        case .rekey:
            guard let session = r.nonce(), let index = r.u8(), let count = r.u8(), index < count else {
                throw malformed("bad rekey frame")
            }
            return .rekey(session: session, index: index, count: count, chunk: r.rest())
        case .rekeyApplied:
            guard let session = r.nonce(), r.remaining == 0 else { throw malformed("bad rekey-applied frame") }
            return .rekeyApplied(session: session)
        }
    }

    private static func malformed(_ what: String) -> HandoffError {
        HandoffError(.corruptPayload, "received a malformed transfer frame (\(what))")
    }
}
