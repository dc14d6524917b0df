/// Checks the structure of a binary property list before Foundation parses it.
///
/// swift-corelibs-foundation's PropertyListSerialization can crash while bridging some malformed but parseable
/// inputs, such as a set whose members cannot be hashed (found by `DecoderPropertyTests`). The payload format
/// never contains sets, UIDs or non-string dictionary keys, so this check refuses them, along with any offset
/// or reference outside the data. It never traps.
enum BinaryPlistValidator {
    static let magic = Array("bplist00".utf8)

    static func validate(_ bytes: [UInt8]) throws {
        func bad(_ why: String) -> HandoffError {
            HandoffError(.corruptPayload, "the payload is not a valid binary property list (\(why))")
        }
        guard bytes.count >= magic.count + 32, Array(bytes.prefix(magic.count)) == magic else {
            throw bad("missing bplist00 header or trailer")
        }
        let trailer = Array(bytes.suffix(32))
        let offsetSize = Int(trailer[6])
        let refSize = Int(trailer[7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize),
              let objectCount = uint(trailer[8..<16]), let top = uint(trailer[16..<24]),
              let tableOffset = uint(trailer[24..<32]) else { throw bad("bad trailer") }
        let end = bytes.count - 32
        guard objectCount >= 1, objectCount <= end, top < objectCount, tableOffset >= magic.count, tableOffset <= end,
              objectCount <= (end - tableOffset) / offsetSize else { throw bad("bad offset table") }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            let start = tableOffset + index * offsetSize
            guard let offset = uint(bytes[start..<start + offsetSize]), offset >= magic.count, offset < tableOffset else {
                throw bad("object offset out of range")
            }
            offsets.append(offset)
        }
        func marker(_ ref: Int) -> UInt8? { ref < offsets.count ? bytes[offsets[ref]] : nil }
        for offset in offsets {
            let m = bytes[offset]
            switch m >> 4 {
            case 0x0:
                guard [0x00, 0x08, 0x09, 0x0F].contains(m) else { throw bad("unknown simple value") }
            case 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0xA:
                continue
            case 0xD:
                var position = offset + 1
                var count = Int(m & 0x0F)
                if count == 0x0F {
                    guard position < tableOffset, bytes[position] >> 4 == 0x1 else { throw bad("bad dictionary size") }
                    let width = 1 << Int(bytes[position] & 0x0F)
                    guard width <= 8, position + 1 + width <= tableOffset,
                          let n = uint(bytes[(position + 1)..<(position + 1 + width)]) else {
                        throw bad("bad dictionary size")
                    }
                    count = n
                    position += 1 + width
                }
                guard count <= (tableOffset - position) / refSize else { throw bad("dictionary past the end") }
                for key in 0..<count {
                    let start = position + key * refSize
                    guard let ref = uint(bytes[start..<start + refSize]), let k = marker(ref),
                          [0x5, 0x6].contains(k >> 4) else { throw bad("a dictionary key is not a string") }
                }
            default:
                throw bad("unsupported object type 0x" + String(m, radix: 16))
            }
        }
    }

    /// A big-endian unsigned integer of 1...8 bytes, if it fits an Int.
    private static func uint(_ slice: ArraySlice<UInt8>) -> Int? {
        var value: UInt64 = 0
        for byte in slice { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
