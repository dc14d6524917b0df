/// The binary property list's string transcoding: a Swift string's UTF-8 to UTF-16 big-endian (`0x6n` objects) and
/// back. Both directions take runs of ASCII eight bytes (four code units) at a time, which is most of a note even in
/// languages with accents; everything else goes one scalar at a time.
enum UTF16BigEndian {
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether valid UTF-8 is all ASCII, and how many UTF-16 code units it makes: one per scalar (every byte but
    /// continuation bytes), two for a four-byte scalar.
    static func measure(_ utf8: UnsafeBufferPointer<UInt8>) -> (isASCII: Bool, units: Int) {
        let raw = UnsafeRawBufferPointer(utf8)
        var high: UInt64 = 0, continuations = 0, fourByteLeads = 0, index = 0
        while index + 8 <= raw.count {
            // Per-byte counters (one per lane, flushed before a lane can overflow): no popcount instruction needed.
            var continuationLanes: UInt64 = 0, fourByteLanes: UInt64 = 0, words = 0
            while index + 8 <= raw.count, words < 255 {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                high |= word
                // A continuation byte is 10xxxxxx; a four-byte lead is 11110xxx (valid UTF-8 has no 11111xxx).
                continuationLanes &+= (word & ~(word << 1) & highBits) >> 7
                fourByteLanes &+= (word & (word << 1) & (word << 2) & (word << 3) & highBits) >> 7
                index += 8
                words += 1
            }
            continuations &+= Self.sumOfLanes(continuationLanes)
            fourByteLeads &+= Self.sumOfLanes(fourByteLanes)
        }
        while index < raw.count {
            let byte = raw[index]
            high |= UInt64(byte)
            continuations &+= byte & 0xC0 == 0x80 ? 1 : 0
            fourByteLeads &+= byte >= 0xF0 ? 1 : 0
            index += 1
        }
        return (high & highBits == 0, utf8.count - continuations + fourByteLeads)
    }

    /// The sum of a word's eight byte lanes.
    private static func sumOfLanes(_ lanes: UInt64) -> Int {
        let pairs = (lanes & 0x00FF_00FF_00FF_00FF) &+ (lanes >> 8 & 0x00FF_00FF_00FF_00FF)
        return Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) >> 48)
    }

    /// Whether `utf8` is all ASCII: 32 bytes a step, in four independent words.
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(utf8)
        var high: UInt64 = 0, index = 0
        while index + 32 <= raw.count {
            let a = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let b = raw.loadUnaligned(fromByteOffset: index + 8, as: UInt64.self)
            let c = raw.loadUnaligned(fromByteOffset: index + 16, as: UInt64.self)
            let d = raw.loadUnaligned(fromByteOffset: index + 24, as: UInt64.self)
            guard (a | b | c | d) & highBits == 0 else { return false }
            index += 32
        }
        while index + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < raw.count {
            high |= UInt64(raw[index])
            index += 1
        }
        return high & highBits == 0
    }

    /// Transcodes valid UTF-8 (a Swift string's storage) into the first `2 * measure(utf8).units` bytes at `out`
    /// (which may be longer), and returns that byte count.
    @discardableResult
    static func encode(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) -> Int {
        let raw = UnsafeRawBufferPointer(utf8)
        var index = 0, position = 0
        while index + 8 <= raw.count {
            let eight = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let high = eight & highBits
            if high == 0 {
                // b0 b1 b2 b3 -> 00 b0 00 b1 00 b2 00 b3: each byte to the high half of a 16-bit lane.
                out.storeBytes(of: (spread(UInt32(truncatingIfNeeded: eight)) << 8).littleEndian,
                               toByteOffset: position, as: UInt64.self)
                out.storeBytes(of: (spread(UInt32(truncatingIfNeeded: eight >> 32)) << 8).littleEndian,
                               toByteOffset: position + 8, as: UInt64.self)
                index += 8
                position += 16
                continue
            }
            // The ASCII bytes before the first that is not (the lowest lane with its high bit set), then one scalar.
            // All eight stored where there is room, as few kept; the bytes after them are written over next.
            let ascii = high.trailingZeroBitCount / 8
            if position + 16 <= out.count {
                out.storeBytes(of: (spread(UInt32(truncatingIfNeeded: eight)) << 8).littleEndian,
                               toByteOffset: position, as: UInt64.self)
                out.storeBytes(of: (spread(UInt32(truncatingIfNeeded: eight >> 32)) << 8).littleEndian,
                               toByteOffset: position + 8, as: UInt64.self)
            } else {
                for offset in 0..<ascii {
                    out.storeBytes(of: UInt16(raw[index + offset]).bigEndian, toByteOffset: position + 2 * offset,
                                   as: UInt16.self)
                }
            }
            index += ascii
            position += 2 * ascii
            encodeScalar(raw, &index, into: out, &position)
        }
        while index < raw.count { encodeScalar(raw, &index, into: out, &position) }
        return position
    }

    /// Four bytes, each to the low byte of a 16-bit lane: b0 b1 b2 b3 -> b0 00 b1 00 b2 00 b3 00 (little-endian).
    @inline(__always)
    private static func spread(_ four: UInt32) -> UInt64 {
        var lanes = UInt64(four)
        lanes = (lanes | lanes << 16) & 0x0000_FFFF_0000_FFFF
        return (lanes | lanes << 8) & 0x00FF_00FF_00FF_00FF
    }

    /// Transcodes the scalar at `index` of valid UTF-8 to one or two big-endian code units at `position`, and moves
    /// both past it.
    @inline(__always)
    private static func encodeScalar(_ raw: UnsafeRawBufferPointer, _ index: inout Int,
                                     into out: UnsafeMutableRawBufferPointer, _ position: inout Int) {
        let lead = UInt32(raw[index])
        var scalar: UInt32
        switch lead {
        case 0..<0x80:
            scalar = lead
            index += 1
        case 0xC0..<0xE0:
            scalar = (lead & 0x1F) << 6 | UInt32(raw[index + 1] & 0x3F)
            index += 2
        case 0xE0..<0xF0:
            scalar = (lead & 0x0F) << 12 | UInt32(raw[index + 1] & 0x3F) << 6 | UInt32(raw[index + 2] & 0x3F)
            index += 3
        default:
            scalar = (lead & 0x07) << 18 | UInt32(raw[index + 1] & 0x3F) << 12
                | UInt32(raw[index + 2] & 0x3F) << 6 | UInt32(raw[index + 3] & 0x3F)
            index += 4
        }
        if scalar >= 0x1_0000 {
            scalar -= 0x1_0000
            out.storeBytes(of: UInt16(0xD800 + (scalar >> 10)).bigEndian, toByteOffset: position, as: UInt16.self)
            out.storeBytes(of: UInt16(0xDC00 + (scalar & 0x3FF)).bigEndian, toByteOffset: position + 2,
                           as: UInt16.self)
            position += 4
        } else {
            out.storeBytes(of: UInt16(scalar).bigEndian, toByteOffset: position, as: UInt16.self)
            position += 2
        }
    }

    /// UTF-16 big-endian (an even number of bytes) to a string; nil for an unpaired surrogate.
    ///
    /// The UTF-8 is made in a scratch buffer and copied into the string unchecked: `String(unsafeUninitializedCapacity:
    /// initializingUTF8With:)` would validate it again, which costs more than the transcoding itself. It is valid
    /// by construction: `transcode` writes each scalar in its shortest form, and refuses surrogates but in pairs.
    static func decode(_ utf16: UnsafeBufferPointer<UInt8>) -> String? {
        let raw = UnsafeRawBufferPointer(utf16)
        let units = raw.count / 2
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: units * 3) { scratch -> String? in
            guard let count = transcode(raw, units: units, into: scratch) else { return nil }
            let utf8 = UnsafeBufferPointer(rebasing: scratch[..<count])
            // A transcoding bug would make a string the standard library trusts and is not: the tests run with
            // assertions on, and the plist fuzz target checks every string it decodes.
            assert(String(validating: utf8, as: UTF8.self) != nil, "the UTF-16 decoder wrote invalid UTF-8")
            return String(copying: UTF8Span(unchecked: utf8.span))
        }
    }

    /// Transcodes `units` UTF-16 big-endian units into `utf8` (at least three bytes a unit), returning the bytes
    /// written; nil for an unpaired surrogate.
    private static func transcode(_ raw: UnsafeRawBufferPointer, units: Int,
                                  into utf8: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        var out = 0, index = 0
        while index < units {
            if index + 4 <= units {
                let lanes = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * index, as: UInt64.self))
                // Four units 00 0x..7F each: the high bytes zero, the low bytes below 0x80.
                let notASCII = lanes & 0x80FF_80FF_80FF_80FF
                if notASCII == 0 {
                    var bytes = lanes >> 8 & 0x00FF_00FF_00FF_00FF
                    bytes = (bytes | bytes >> 8) & 0x0000_FFFF_0000_FFFF
                    bytes = (bytes | bytes >> 16) & 0xFFFF_FFFF
                    UnsafeMutableRawBufferPointer(utf8).storeBytes(of: UInt32(bytes).littleEndian,
                                                                   toByteOffset: out, as: UInt32.self)
                    out += 4
                    index += 4
                    continue
                }
                // The ASCII units before the first that is not (the lowest lane with a bit of the mask set):
                // all four stored, as few kept. The capacity (3 bytes a unit) leaves room past the four.
                let ascii = notASCII.trailingZeroBitCount / 16
                var bytes = lanes >> 8 & 0x00FF_00FF_00FF_00FF
                bytes = (bytes | bytes >> 8) & 0x0000_FFFF_0000_FFFF
                bytes = (bytes | bytes >> 16) & 0xFFFF_FFFF
                UnsafeMutableRawBufferPointer(utf8).storeBytes(of: UInt32(bytes).littleEndian,
                                                               toByteOffset: out, as: UInt32.self)
                out += ascii
                index += ascii
            }
            var scalar = UInt32(raw[2 * index]) << 8 | UInt32(raw[2 * index + 1])
            index += 1
            if scalar & 0xF800 == 0xD800 {
                guard scalar < 0xDC00, index < units else { return nil }
                let low = UInt32(raw[2 * index]) << 8 | UInt32(raw[2 * index + 1])
                guard low & 0xFC00 == 0xDC00 else { return nil }
                index += 1
                scalar = 0x1_0000 + ((scalar - 0xD800) << 10 | (low - 0xDC00))
            }
            switch scalar {
            case 0..<0x80:
                utf8[out] = UInt8(scalar)
                out += 1
            case 0x80..<0x800:
                utf8[out] = UInt8(0xC0 | scalar >> 6)
                utf8[out + 1] = UInt8(0x80 | scalar & 0x3F)
                out += 2
            case 0x800..<0x1_0000:
                utf8[out] = UInt8(0xE0 | scalar >> 12)
                utf8[out + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                utf8[out + 2] = UInt8(0x80 | scalar & 0x3F)
                out += 3
            default:   // a pair: two units became four bytes, within the capacity of 3 per unit
                utf8[out] = UInt8(0xF0 | scalar >> 18)
                utf8[out + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                utf8[out + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                utf8[out + 3] = UInt8(0x80 | scalar & 0x3F)
                out += 4
            }
        }
        return out
    }
}
