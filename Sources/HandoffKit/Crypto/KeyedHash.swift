import FoundationEssentials

/// What a BLAKE2b input is for, as the bytes it opens with (domain separation): no key serves two purposes, and
/// nothing made for one purpose reads as another's. Each is fixed by the wire format (Docs/protocol.md); the
/// earliest have no 0x00 after their text, where what follows has a fixed length.
struct HashLabel: Sendable, Equatable {
    /// The bytes the hashed message starts with.
    let bytes: [UInt8]

    private init(_ text: String, separated: Bool) {
        bytes = Array(text.utf8) + (separated ? [0] : [])
    }

    // Keys derived from the group key (`GroupKeys`).
    /// The beacon encryption and MAC keys of one device.
    static let beacon = HashLabel("handoff.v1.beacon", separated: true)
    /// The key of the activity type tags in beacons.
    static let typeTag = HashLabel("handoff.v1.type", separated: true)
    /// The key that authenticates REQUEST, PROVE and ERROR.
    static let request = HashLabel("handoff.v1.request", separated: true)
    /// The key that seals one transfer.
    static let transfer = HashLabel("handoff.v1.transfer", separated: true)

    // Continues.
    /// PROVE: the client's answer to the source's challenge.
    static let requestProof = HashLabel("handoff.v2.request.proof", separated: true)
    /// The tag of an ERROR about something the source authenticated.
    static let error = HashLabel("handoff.v2.error", separated: true)
    /// DONE: the client could open the whole transfer.
    static let done = HashLabel("handoff.v1.done", separated: false)
    /// The tag of a refusal given without a shared key (unkeyed).
    static let refused = HashLabel("handoff.v2.refused", separated: true)

    // Pushes (`ShareKeys`), under the pairwise key and the keys derived from it.
    /// The key that authenticates PUSH, PUSH-PROOF and PUSH-ERROR.
    static let push = HashLabel("handoff.v1.push", separated: false)
    /// The key that seals one push.
    static let share = HashLabel("handoff.v1.share", separated: true)
    /// PUSH-PROOF: the sender's answer to the receiver's challenge.
    static let pushProof = HashLabel("handoff.v2.push.proof", separated: true)
    /// The tag of a PUSH-ERROR.
    static let shareError = HashLabel("handoff.v2.share.error", separated: true)
    /// PUSH-DONE: the receiver could open the whole stream.
    static let shareDone = HashLabel("handoff.v1.share.done", separated: false)

    // The fast lane (`LaneKeys`), under a key derived from one transfer's key.
    /// The lane key of one transfer.
    static let lane = HashLabel("handoff.v3.lane", separated: true)
    /// LANE-ASK: the sender can take the fast lane for this transfer.
    static let laneAsk = HashLabel("handoff.v3.lane.ask", separated: true)
    /// LANE-HELLO: the connection's first frame, proving the connector holds the lane key and the offer's ticket.
    static let laneHello = HashLabel("handoff.v3.lane.hello", separated: true)
    /// LANE-WELCOME: the listener's answer, proving the same to the connector.
    static let laneWelcome = HashLabel("handoff.v3.lane.welcome", separated: true)

    // Pairing (unkeyed).
    /// The responder's commitment to its nonce.
    static let pairingCommitment = HashLabel("handoff.v1.pair.commit", separated: false)
    /// The hash of a pairing's transcript.
    static let pairingTranscript = HashLabel("handoff.v1.pair", separated: false)

    /// Unkeyed BLAKE2b-`length` of this label and then `fields`.
    func digest(_ fields: [UInt8]..., length: Int) -> [UInt8] {
        Sodium.genericHash(fields.reduce(bytes, +), length: length)
    }
}

/// A key for keyed BLAKE2b (libsodium's crypto_generichash), and the one shape of the MACs, tags and keys HandoffKit
/// makes with it: a ``HashLabel``, then its purpose's fields, hashed under the key.
struct KeyedHash: Sendable {
    /// The key (16 to 64 bytes).
    let key: [UInt8]

    /// Hashes under `key`.
    init(key: [UInt8]) {
        self.key = key
    }

    /// BLAKE2b-`length` of `label` and then `fields`.
    func hash(_ label: HashLabel, _ fields: [UInt8]..., length: Int = Sodium.keyLength) -> [UInt8] {
        hash(label, fields, length: length)
    }

    /// BLAKE2b-`length` of `message`, which carries no label: its key serves it alone, or it opens with a frame's
    /// version and kind.
    func hash(_ message: [UInt8], length: Int) -> [UInt8] {
        Sodium.genericHash(message, key: key, length: length)
    }

    /// The key for one purpose: the 32-byte hash of `label` and then `fields`.
    func derive(_ label: HashLabel, _ fields: [UInt8]...) -> KeyedHash {
        KeyedHash(key: hash(label, fields, length: Sodium.keyLength))
    }

    /// The MAC (`TransferFrame.macLength` bytes) of `label` and then `fields`.
    func mac(_ label: HashLabel, _ fields: [UInt8]...) -> [UInt8] {
        hash(label, fields, length: TransferFrame.macLength)
    }

    /// The MAC (`TransferFrame.macLength` bytes) of a frame's signed part, which opens with its version and kind.
    func mac(signed part: [UInt8]) -> [UInt8] {
        hash(part, length: TransferFrame.macLength)
    }

    /// The tag of an ERROR frame about `context`: the MAC of `label`, `context`, the code (u16, clamped) and the
    /// message's UTF-8.
    func errorTag(_ label: HashLabel, context: [UInt8], code: Int, message: String) -> [UInt8] {
        var w = ByteWriter()
        w.raw(context); w.u16(UInt16(clamping: code)); w.raw(message.utf8)
        return mac(label, w.bytes)
    }

    private func hash(_ label: HashLabel, _ fields: [[UInt8]], length: Int) -> [UInt8] {
        Sodium.genericHash(fields.reduce(label.bytes, +), key: key, length: length)
    }
}
