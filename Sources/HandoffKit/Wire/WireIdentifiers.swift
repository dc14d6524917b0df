/// The random 8-byte id of one sealed stream: an activity transfer or a push. The transfer key is derived from it,
/// and every FETCH, DONE and DATA frame names it.
struct TransferID: Hashable, Sendable, CustomStringConvertible {
    /// Length of a transfer id on the wire.
    static let byteCount = 8

    /// The id as it goes on the wire (always `byteCount` bytes).
    let bytes: [UInt8]

    /// The all-zero id, which names no transfer: the share ERROR answering a frame that could not be read.
    static let zero = TransferID(unchecked: [UInt8](repeating: 0, count: byteCount))

    /// The id made of `bytes`, or nil unless there are exactly `byteCount` of them.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// The id `hex` spells, or nil unless it is exactly `2 * byteCount` hex digits (either case).
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * Self.byteCount else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    /// A fresh random id.
    static func random() -> TransferID {
        TransferID(unchecked: Sodium.randomBytes(byteCount))
    }

    /// Lowercase hex, as the inbox and outbox name transfers.
    var description: String { ShareInbox.hexString(bytes) }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}

/// A random 8-byte value a client picks so it can tell the answers meant for it: the nonce of a REQUEST (echoed by
/// OPEN) or the session of a pairing or rekey exchange.
struct Nonce: Hashable, Sendable, CustomStringConvertible {
    /// Length of a nonce on the wire.
    static let byteCount = 8

    /// The nonce as it goes on the wire (always `byteCount` bytes).
    let bytes: [UInt8]

    /// The nonce made of `bytes`, or nil unless there are exactly `byteCount` of them.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// A fresh random nonce.
    static func random() -> Nonce {
        Nonce(unchecked: Sodium.randomBytes(byteCount))
    }

    /// Lowercase hex.
    var description: String { ShareInbox.hexString(bytes) }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}

/// What an ERROR frame answers: a request (by its nonce), a transfer (by its id), a pairing or rekey session (by
/// its nonce), or nothing (`zero`). Always 8 bytes on the wire.
struct ErrorContext: Hashable, Sendable, CustomStringConvertible {
    /// Length of an error context on the wire.
    static let byteCount = 8

    /// The context as it goes on the wire (always `byteCount` bytes).
    let bytes: [UInt8]

    /// The context of an ERROR that answers no request, transfer or session (a frame the source could not read):
    /// all zeros.
    static let zero = ErrorContext(TransferID.zero)

    /// The context of an ERROR about transfer `id`.
    init(_ id: TransferID) { self.init(unchecked: id.bytes) }

    /// The context of an ERROR answering the request or session `nonce`.
    init(_ nonce: Nonce) { self.init(unchecked: nonce.bytes) }

    /// The context made of `bytes`, or nil unless there are exactly `byteCount` of them.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// Lowercase hex.
    var description: String { ShareInbox.hexString(bytes) }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }
}

extension ByteReader {
    /// Reads a transfer id; nil on short input.
    mutating func transferID() -> TransferID? { take(TransferID.byteCount).flatMap { TransferID(bytes: $0) } }

    /// Reads a nonce; nil on short input.
    mutating func nonce() -> Nonce? { take(Nonce.byteCount).flatMap { Nonce(bytes: $0) } }

    /// Reads an error context; nil on short input.
    mutating func errorContext() -> ErrorContext? { take(ErrorContext.byteCount).flatMap { ErrorContext(bytes: $0) } }
}
