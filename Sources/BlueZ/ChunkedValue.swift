import FoundationEssentials

/// Carries values larger than one ATT attribute (512 bytes, and bluetoothd silently truncates beyond that)
/// as a sequence of chunks, each small enough for one ATT PDU.
///
/// The first chunk starts with the total length as a 4-byte big-endian integer; the rest is payload. ATT
/// delivers writes and notifications of one connection in order, so no sequence numbers are needed.
public enum ChunkedValue {
    /// The chunk size for a negotiated ATT MTU: one PDU minus the 3-byte header, and at most 244 bytes (one
    /// LE data PDU of 251 bytes less the L2CAP and ATT headers). bluetoothd 5.66 refused 512-byte Write
    /// Requests at MTU 517 with ATT 0x0d in the VM tier, while 45-byte chunks at MTU 48 passed.
    public static func chunkSize(mtu: Int) -> Int { max(20, min(244, mtu - 3)) }

    /// Splits `value` into chunks of at most `chunkSize` bytes, the first carrying the length header.
    public static func chunks(of value: Data, chunkSize: Int) -> [Data] {
        precondition(chunkSize >= 5, "a chunk must hold the 4-byte header and a byte")
        var framed = Data()
        let count = UInt32(value.count)
        framed.append(contentsOf: [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF),
                                   UInt8(count & 0xFF)])
        framed.append(value)
        var result: [Data] = []
        var start = framed.startIndex
        while start < framed.endIndex {
            let end = min(start + chunkSize, framed.endIndex)
            result.append(Data(framed[start..<end]))
            start = end
        }
        return result
    }

    /// Reassembles chunks back into values; feed it every chunk in arrival order.
    public struct Reassembler: Sendable {
        private var buffer = Data()
        private var expected: Int?
        /// The largest value accepted; a header announcing more is refused (and the stream reset).
        public let limit: Int

        /// A reassembler accepting values up to `limit` bytes.
        public init(limit: Int = 16 << 20) { self.limit = limit }

        /// Adds a chunk; returns a completed value when this chunk finished one.
        /// - Throws: ``BlueZError`` `.invalidInput` when a header announces more than ``limit``.
        public mutating func append(_ chunk: Data) throws(BlueZError) -> Data? {
            buffer.append(chunk)
            if expected == nil {
                guard buffer.count >= 4 else { return nil }
                let bytes = [UInt8](buffer.prefix(4))
                let count = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
                guard count <= limit else {
                    buffer.removeAll()
                    throw BlueZError(.invalidInput, "chunked value of \(count) bytes exceeds the \(limit)-byte limit")
                }
                expected = count
                buffer = Data(buffer.dropFirst(4))
            }
            guard let expected, buffer.count >= expected else { return nil }
            let value = Data(buffer.prefix(expected))
            buffer = Data(buffer.dropFirst(expected))
            self.expected = nil
            return value
        }
    }
}
