/// An 8-byte value that names something on the wire. Each kind is a type of its own, so that a transfer id cannot
/// stand in for a nonce; what they share (the length check, hex, reading one off a frame) is said once here.
protocol WireIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The value as it goes on the wire (always `byteCount` bytes).
    var bytes: [UInt8] { get }

    /// Wraps `bytes`, which the caller has checked are `byteCount` long. Only this file's initialisers call it.
    init(checked bytes: [UInt8])
}

extension WireIdentifier {
    /// Length of the value on the wire.
    static var byteCount: Int { 8 }

    /// The value made of `bytes`, or nil unless there are exactly `byteCount` of them.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.init(checked: Array(bytes))
    }

    /// Lowercase hex, as the inbox and outbox name transfers.
    var description: String { ShareInbox.hexString(bytes) }
}

/// The random 8-byte id of one sealed stream: an activity transfer or a push. The transfer key is derived from it,
/// and every FETCH, DONE and DATA frame names it.
struct TransferID: WireIdentifier {
    let bytes: [UInt8]

    init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// The all-zero id, which names no transfer: the share ERROR answering a frame that could not be read.
    static let zero = TransferID(checked: [UInt8](repeating: 0, count: byteCount))

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
        TransferID(checked: Sodium.randomBytes(byteCount))
    }
}

/// A random 8-byte value a client picks so it can tell the answers meant for it: the nonce of a REQUEST (echoed by
/// OPEN) or the session of a pairing or rekey exchange.
struct Nonce: WireIdentifier {
    let bytes: [UInt8]

    init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// A fresh random nonce.
    static func random() -> Nonce {
        Nonce(checked: Sodium.randomBytes(byteCount))
    }
}

/// What an ERROR frame answers: a request (by its nonce), a transfer (by its id), a pairing or rekey session (by
/// its nonce), or nothing (`zero`). Always 8 bytes on the wire.
struct ErrorContext: WireIdentifier {
    let bytes: [UInt8]

    init(checked bytes: [UInt8]) { self.bytes = bytes }

    /// The context of an ERROR that answers no request, transfer or session (a frame the source could not read):
    /// all zeros.
    static let zero = ErrorContext(TransferID.zero)

    /// The context of an ERROR about transfer `id`.
    init(_ id: TransferID) { self.init(checked: id.bytes) }

    /// The context of an ERROR answering the request or session `nonce`.
    init(_ nonce: Nonce) { self.init(checked: nonce.bytes) }
}

extension ByteReader {
    /// Reads a transfer id; nil on short input.
    mutating func transferID() -> TransferID? { take(TransferID.byteCount).flatMap { TransferID(bytes: $0) } }

    /// Reads a nonce; nil on short input.
    mutating func nonce() -> Nonce? { take(Nonce.byteCount).flatMap { Nonce(bytes: $0) } }

    /// Reads an error context; nil on short input.
    mutating func errorContext() -> ErrorContext? { take(ErrorContext.byteCount).flatMap { ErrorContext(bytes: $0) } }
}
