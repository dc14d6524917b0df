import FoundationEssentials

extension BinaryPropertyList {
    /// Writes one binary property list in a single pass over the value: each container's children get their
    /// object numbers before the container is written, and are written after it.
    ///
    /// Dictionary keys are written once and shared between dictionaries, as CoreFoundation and plistlib do.
    /// Integers take the smallest width the format allows (negative ones take 8 bytes), strings are ASCII when they
    /// can be and UTF-16 otherwise, and a URL is the one-key dictionary `{"$handoff.url": "<absolute string>"}`.
    struct Writer {
        private let maximumDepth: Int
        private var output: [UInt8] = []
        /// Where each object starts, by object number.
        private var offsets: [Int] = []
        private var nextObject = 0
        private var refSize = 1
        private var shared: [String: Int] = [:]

        /// Keys up to this many UTF-8 bytes are shared between their uses.
        private static let sharedStringLength = 48

        init(limits: Limits) {
            maximumDepth = limits.maximumDepth
        }

        mutating func write(_ value: PlistValue) throws(BinaryPropertyListError) -> [UInt8] {
            var bytes = 0, keys = 0
            let objects = try Self.measure(value, depth: 0, maximumDepth: maximumDepth, bytes: &bytes, keys: &keys)
            shared.reserveCapacity(keys)
            refSize = Self.width(of: UInt64(objects - 1))
            offsets = [Int](repeating: 0, count: objects)
            output.reserveCapacity(magic.count + bytes + objects * (refSize + 4) + trailerLength)
            output.append(contentsOf: magic)
            let (root, _) = number(value, isKey: false)
            emit(value, as: root)
            let table = output.count
            let offsetSize = Self.width(of: UInt64(offsets[0..<nextObject].max() ?? 0))
            for offset in offsets[0..<nextObject] { append(UInt64(offset), width: offsetSize) }
            output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
            append(UInt64(nextObject), width: 8)
            append(UInt64(root), width: 8)
            append(UInt64(table), width: 8)
            return output
        }

        /// Counts the objects `value` needs at most (before sharing), roughly the bytes its leaves take, and its
        /// dictionary keys; refuses a nesting the reader would refuse.
        private static func measure(_ value: PlistValue, depth: Int, maximumDepth: Int, bytes: inout Int,
                                    keys: inout Int) throws(BinaryPropertyListError) -> Int {
            switch value {
            case .string(let s):
                bytes += s.utf8.count + 3
                return 1
            case .data(let d):
                bytes += d.count + 3
                return 1
            case .integer, .real, .date, .bool:
                bytes += 9
                return 1
            case .url(let url):
                guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                bytes += url.absoluteString.utf8.count + urlMarkerKey.utf8.count + 8
                return 3
            case .array(let items):
                guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                var count = 1
                for item in items {
                    count += try measure(item, depth: depth + 1, maximumDepth: maximumDepth, bytes: &bytes, keys: &keys)
                }
                return count
            case .dictionary(let entries):
                guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
                var count = 1
                keys += entries.count
                for (key, item) in entries {
                    bytes += key.utf8.count + 2
                    count += 1 + (try measure(item, depth: depth + 1, maximumDepth: maximumDepth, bytes: &bytes,
                                              keys: &keys))
                }
                return count
            }
        }

        /// Gives `value` an object number: the next free one (`isNew`), or for a dictionary key
        /// already written, that key's.
        private mutating func number(_ value: PlistValue, isKey: Bool) -> (object: Int, isNew: Bool) {
            if isKey, case .string(let s) = value, s.utf8.count <= Self.sharedStringLength {
                if let object = shared[s] { return (object, false) }
                shared[s] = nextObject
            }
            defer { nextObject += 1 }
            return (nextObject, true)
        }

        private mutating func emit(_ value: PlistValue, as object: Int) {
            offsets[object] = output.count
            switch value {
            case .bool(let b):
                output.append(b ? 0x09 : 0x08)
            case .integer(let n):
                integer(n)
            case .real(let r):
                output.append(0x23)
                append(r.bitPattern, width: 8)
            case .date(let d):
                output.append(0x33)
                append(d.timeIntervalSinceReferenceDate.bitPattern, width: 8)
            case .data(let d):
                header(0x40, d.count)
                output.append(contentsOf: d)
            case .string(let s):
                string(s)
            case .array(let items):
                container(0xA0, children: items, keys: 0)
            case .dictionary(let entries):
                let sorted = entries.sorted { $0.key < $1.key }
                var children: [PlistValue] = []
                children.reserveCapacity(2 * sorted.count)
                for (key, _) in sorted { children.append(.string(key)) }
                for (_, item) in sorted { children.append(item) }
                container(0xD0, children: children, keys: sorted.count)
            case .url(let url):
                container(0xD0, children: [.string(urlMarkerKey), .string(url.absoluteString)], keys: 1)
            }
        }

        /// An array (`keys` 0) or a dictionary (its `keys` keys, then as many values): the marker, the references,
        /// then every child not yet written.
        private mutating func container(_ marker: UInt8, children: [PlistValue], keys: Int) {
            var numbers: [(object: Int, isNew: Bool)] = []
            numbers.reserveCapacity(children.count)
            for (index, child) in children.enumerated() { numbers.append(number(child, isKey: index < keys)) }
            header(marker, children.count - keys)
            for (object, _) in numbers { append(UInt64(object), width: refSize) }
            for (child, (object, isNew)) in zip(children, numbers) where isNew { emit(child, as: object) }
        }

        private mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                let (isASCII, units) = UTF16BigEndian.measure(utf8)
                if isASCII {
                    header(0x50, utf8.count)
                    output.append(contentsOf: utf8)
                } else {
                    header(0x60, units)
                    let start = output.count
                    output.append(contentsOf: repeatElement(0, count: 2 * units))
                    output.withUnsafeMutableBytes { out in
                        UTF16BigEndian.encode(utf8, into: UnsafeMutableRawBufferPointer(rebasing: out[start...]))
                    }
                }
            }
        }

        /// An integer object in the smallest width: 1, 2 or 4 bytes unsigned, else 8 bytes signed.
        private mutating func integer(_ n: Int64) {
            switch n {
            case 0..<0x100: output.append(0x10); append(UInt64(n), width: 1)
            case 0x100..<0x1_0000: output.append(0x11); append(UInt64(n), width: 2)
            case 0x1_0000..<0x1_0000_0000: output.append(0x12); append(UInt64(n), width: 4)
            default: output.append(0x13); append(UInt64(bitPattern: n), width: 8)
            }
        }

        /// A marker with its count in the low nibble, or 0xF and the count as an integer object.
        private mutating func header(_ marker: UInt8, _ count: Int) {
            if count < 0x0F {
                output.append(marker | UInt8(count))
            } else {
                output.append(marker | 0x0F)
                integer(Int64(count))
            }
        }

        /// `value`'s low `width` bytes (1, 2, 4 or 8), big-endian.
        private mutating func append(_ value: UInt64, width: Int) {
            switch width {
            case 1:
                output.append(UInt8(truncatingIfNeeded: value))
            case 2:
                output.append(UInt8(truncatingIfNeeded: value >> 8))
                output.append(UInt8(truncatingIfNeeded: value))
            default:
                withUnsafeBytes(of: value.bigEndian) { output.append(contentsOf: $0[(8 - width)...]) }
            }
        }

        /// The bytes needed for an unsigned value: 1, 2, 4 or 8.
        private static func width(of value: UInt64) -> Int {
            switch value {
            case 0..<0x100: 1
            case 0x100..<0x1_0000: 2
            case 0x1_0000..<0x1_0000_0000: 4
            default: 8
            }
        }
    }
}
