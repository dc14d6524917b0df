/// Splits pairing (and rekey) messages into frames that fit one value, and puts them back together.
struct PairingFragments {
    /// Frames carrying `message`, each at most `maximumValue` bytes; `rekey` frames instead of pairing frames
    /// when `asRekey` is true.
    static func split(_ message: [UInt8], session: Nonce, maximumValue: Int, fromServer: Bool,
                      asRekey: Bool = false) throws(HandoffError) -> [TransferFrame] {
        let room = maximumValue - TransferFrame.pairOverhead
        let count = max(1, (message.count + room - 1) / room)
        guard room > 0, count <= Int(UInt8.max) else {
            throw HandoffError(.pairingFailed, "a pairing message of \(message.count) bytes does not fit this link")
        }
        return (0..<count).map { index in
            let chunk = Array(message[min(index * room, message.count)..<min((index + 1) * room, message.count)])
            if asRekey { return .rekey(session: session, index: UInt8(index), count: UInt8(count), chunk: chunk) }
            return .pair(session: session, index: UInt8(index), count: UInt8(count), chunk: chunk, fromServer: fromServer)
        }
    }

    private var chunks: [[UInt8]] = []
    private var expected = 0

    /// Adds a fragment; returns the whole message once its last fragment arrived in order, nil before.
    /// Throws when fragments arrive out of order (a lost notification): pairing then fails and is retried by the user.
    mutating func add(index: UInt8, count: UInt8, chunk: [UInt8]) throws(HandoffError) -> [UInt8]? {
        if index == 0 {
            chunks = []
            expected = Int(count)
        }
        guard Int(index) == chunks.count, Int(count) == expected else {
            throw HandoffError(.pairingFailed, "a pairing message arrived incomplete; pair again")
        }
        chunks.append(chunk)
        guard chunks.count == expected else { return nil }
        defer { chunks = [] }
        return chunks.flatMap { $0 }
    }
}
