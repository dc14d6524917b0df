/// The fast lane's frames (Docs/protocol.md §9). LANE-ASK and LANE-OFFER travel over BLE beside a transfer's
/// other frames; LANE-HELLO and LANE-WELCOME open a lane connection. Kinds sit in the share range
/// (`0x34`, `0x35` written by the party that sends the stream; `0xB4`, `0xB5` by the one that receives it), which
/// `ShareFrame` does not claim, so a peer built before the lane refuses an ASK like any unknown frame, with an
/// unbound ERROR its sender drops: that peer is never offered, and never offers.
enum LaneFrame: Sendable, Equatable {
    /// Sender → receiver, over BLE: "I can take the lane for `transferID`". `mac` under the lane key.
    case ask(transferID: TransferID, mac: [UInt8])
    /// Receiver → sender, over BLE: the sealed offer (`LaneOffer`): XChaCha20-Poly1305 under the lane key.
    case offer(transferID: TransferID, nonce: [UInt8], sealed: [UInt8])
    /// Connector → listener, the lane connection's first frame: the MAC of the offer's ticket.
    case hello(transferID: TransferID, mac: [UInt8])
    /// Listener → connector, its answer: the same, under its own label.
    case welcome(transferID: TransferID, mac: [UInt8])

    enum Kind: UInt8 {
        case ask = 0x34, hello = 0x35
        case offer = 0xB4, welcome = 0xB5
    }

    /// Whether `bytes` is a lane frame of this version.
    static func claims(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == WireProtocol.version && Kind(rawValue: bytes[1]) != nil
    }

    func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(WireProtocol.version)
        switch self {
        case .ask(let id, let mac): w.u8(Kind.ask.rawValue); w.raw(id.bytes); w.raw(mac)
        case .offer(let id, let nonce, let sealed): w.raw(Self.offerPrefix(id)[1...]); w.raw(nonce); w.raw(sealed)
        case .hello(let id, let mac): w.u8(Kind.hello.rawValue); w.raw(id.bytes); w.raw(mac)
        case .welcome(let id, let mac): w.u8(Kind.welcome.rawValue); w.raw(id.bytes); w.raw(mac)
        }
        return w.bytes
    }

    /// `version ‖ kind ‖ transferID` of an offer: its AEAD's additional data.
    static func offerPrefix(_ id: TransferID) -> [UInt8] {
        [WireProtocol.version, Kind.offer.rawValue] + id.bytes
    }

    /// Parses a lane frame; nil for anything else (the lane never answers a frame it cannot read).
    static func decode(_ bytes: [UInt8]) -> LaneFrame? {
        var r = ByteReader(bytes)
        guard r.u8() == WireProtocol.version, let raw = r.u8(), let kind = Kind(rawValue: raw),
              let id = r.transferID() else { return nil }
        switch kind {
        case .ask, .hello, .welcome:
            guard let mac = r.take(TransferFrame.macLength), r.remaining == 0 else { return nil }
            return kind == .ask ? .ask(transferID: id, mac: mac)
                : kind == .hello ? .hello(transferID: id, mac: mac) : .welcome(transferID: id, mac: mac)
        case .offer:
            guard let nonce = r.take(Sodium.aeadNonceLength), r.remaining > Sodium.aeadTagLength,
                  r.remaining <= LaneOffer.maximumSealedLength else { return nil }
            return .offer(transferID: id, nonce: nonce, sealed: r.rest())
        }
    }
}

/// What a receiver offers: a one-shot ticket, a port and its addresses. Sealed in LANE-OFFER, so only the peer
/// that holds the transfer's key learns where this machine can be reached.
///
///     ticket(16) ‖ port(2) ‖ count(1) ‖ count × (length(1): 4 or 16 ‖ address)
struct LaneOffer: Sendable, Equatable {
    var ticket: [UInt8]
    var port: UInt16
    var addresses: [[UInt8]]

    /// At most this many addresses are offered (the first ones the machine lists).
    static let maximumAddresses = 8
    static let ticketLength = 16
    /// The longest sealed offer: 8 IPv6 addresses and the AEAD tag.
    static let maximumSealedLength = ticketLength + 3 + maximumAddresses * 17 + Sodium.aeadTagLength

    var endpoints: [LaneEndpoint] { addresses.compactMap { LaneEndpoint(address: $0, port: port) } }

    var encoded: [UInt8] {
        var w = ByteWriter()
        w.raw(ticket); w.u16(port); w.u8(UInt8(addresses.count))
        for address in addresses { w.u8(UInt8(address.count)); w.raw(address) }
        return w.bytes
    }

    init(ticket: [UInt8], port: UInt16, addresses: [[UInt8]]) {
        self.ticket = ticket
        self.port = port
        self.addresses = Array(addresses.prefix(Self.maximumAddresses))
    }

    init?(decoding bytes: [UInt8]) {
        var r = ByteReader(bytes)
        guard let ticket = r.take(Self.ticketLength), let port = r.u16(), let count = r.u8(),
              count <= Self.maximumAddresses else { return nil }
        var addresses: [[UInt8]] = []
        for _ in 0..<count {
            guard let length = r.u8(), length == 4 || length == 16, let address = r.take(Int(length)) else { return nil }
            addresses.append(address)
        }
        guard r.remaining == 0 else { return nil }
        self.init(ticket: ticket, port: port, addresses: addresses)
    }
}

/// The keys of one transfer's lane, derived from the transfer's own key (a push's pairwise transfer key, or a
/// continue's group-derived one), so a lane is bound to exactly one transfer:
///
///     laneKey = BLAKE2b-32(key = transferKey, "handoff.v3.lane" ‖ 0x00 ‖ transferID)
struct LaneKeys: Sendable {
    private let lane: KeyedHash
    let transferID: TransferID

    init(transferKey: [UInt8], transferID: TransferID) {
        self.transferID = transferID
        lane = KeyedHash(key: transferKey).derive(.lane, transferID.bytes)
    }

    /// LANE-ASK's MAC.
    var askMAC: [UInt8] { lane.mac(.laneAsk, transferID.bytes) }

    /// LANE-HELLO's MAC for `ticket`.
    func helloMAC(ticket: [UInt8]) -> [UInt8] { lane.mac(.laneHello, transferID.bytes, ticket) }

    /// LANE-WELCOME's MAC for `ticket`.
    func welcomeMAC(ticket: [UInt8]) -> [UInt8] { lane.mac(.laneWelcome, transferID.bytes, ticket) }

    /// The LANE-OFFER frame for `offer`, under a fresh nonce.
    func seal(_ offer: LaneOffer) -> [UInt8] {
        let nonce = Sodium.randomBytes(Sodium.aeadNonceLength)
        let sealed = Sodium.seal(offer.encoded, additionalData: LaneFrame.offerPrefix(transferID), nonce: nonce,
                                 key: lane.key)
        return LaneFrame.offer(transferID: transferID, nonce: nonce, sealed: sealed).encoded()
    }

    /// The offer in `frame`, when it is this transfer's and opens under the lane key.
    func open(_ frame: LaneFrame) -> LaneOffer? {
        guard case .offer(let id, let nonce, let sealed) = frame, id == transferID,
              let plain = Sodium.open(sealed, additionalData: LaneFrame.offerPrefix(id), nonce: nonce, key: lane.key)
        else { return nil }
        return LaneOffer(decoding: plain)
    }
}
