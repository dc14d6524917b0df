/// Reads big-endian integers and byte strings; every read returns nil on short input (it never traps).
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - position }

    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16? {
        guard let hi = u8(), let lo = u8() else { return nil }
        return UInt16(hi) << 8 | UInt16(lo)
    }

    mutating func u32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 { v = v << 8 | UInt32(bytes[position]); position += 1 }
        return v
    }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func rest() -> [UInt8] { take(remaining) ?? [] }
}
