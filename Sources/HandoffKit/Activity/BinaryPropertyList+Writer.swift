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
        /// The keys written so far, for sharing: searched in order, since a few string comparisons cost less than
        /// hashing a key. Past `sharedLimit` keys, further ones go to `moreSharedKeys`.
        private var sharedKeys: [SharedKey] = []
        private var moreSharedKeys: [String: Int] = [:]

        /// A key written once, and its object number.
        private struct SharedKey {
            let key: String
            let object: Int
        }

        /// Keys up to this many UTF-8 bytes are shared between their uses.
        private static let sharedStringLength = 48
        /// How many shared keys are searched in order before a dictionary takes the rest.
        private static let sharedLimit = 32

        init(limits: Limits) {
            maximumDepth = limits.maximumDepth
        }

        mutating func write(_ value: PlistValue) throws(BinaryPropertyListError) -> [UInt8] {
            var bytes = 0, keys = 0
            let objects = try Self.measure(value, depth: 0, maximumDepth: maximumDepth, bytes: &bytes, keys: &keys)
            let root = start(objects: objects, bytes: bytes, keys: keys)
            emit(value, as: root)
            return finish(root: root)
        }

        /// Writes the dictionary of `entries`, whose keys are distinct, as the root; as `write(.dictionary(…))`
        /// would, without hashing the keys into a dictionary first.
        mutating func write(entries: [(key: String, value: PlistValue)]) throws(BinaryPropertyListError) -> [UInt8] {
            guard maximumDepth >= 0 else { throw .tooDeep(limit: maximumDepth) }
            var bytes = 0, keys = entries.count, objects = 1
            for (key, item) in entries {
                bytes += key.utf8.count + 2
                objects += 1 + (try Self.measure(item, depth: 1, maximumDepth: maximumDepth, bytes: &bytes,
                                                 keys: &keys))
            }
            let root = start(objects: objects, bytes: bytes, keys: keys)
            offsets[root] = output.count
            if zip(entries, entries.dropFirst()).allSatisfy({ $0.key < $1.key }) {
                dictionary(entries)
            } else {
                dictionary(entries.sorted { $0.key < $1.key })
            }
            return finish(root: root)
        }

        /// Sizes the tables and the output for a value `measure` found to need at most `objects` objects, about
        /// `bytes` bytes and `keys` keys; writes the magic and numbers the root, which it returns.
        private mutating func start(objects: Int, bytes: Int, keys: Int) -> Int {
            sharedKeys.reserveCapacity(min(keys, Self.sharedLimit))
            refSize = Self.width(of: UInt64(objects - 1))
            offsets = [Int](repeating: 0, count: objects)
            output.reserveCapacity(magic.count + bytes + objects * (refSize + 4) + trailerLength)
            output.append(contentsOf: magic)
            nextObject = 1
            return 0
        }

        /// Appends the offset table and the trailer, and returns the output.
        private mutating func finish(root: Int) -> [UInt8] {
            let table = output.count
            // Wide enough for the table's own offset, as CoreFoundation requires (plistlib and Apple's writer size
            // it so): a list of 256-odd bytes whose last object starts below 256 needs 2 bytes, not 1, or
            // Foundation's reader refuses it. Every object's offset is below the table's, so this covers them too.
            let offsetSize = Self.width(of: UInt64(table))
            for offset in offsets[0..<nextObject] { append(UInt64(offset), width: offsetSize) }
            output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
            append(UInt64(nextObject), width: 8)
            append(UInt64(root), width: 8)
            append(UInt64(table), width: 8)
            return output
        }

        /// Counts the objects `value` needs at most (before sharing), at least the bytes its leaves take, and its
        /// dictionary keys; refuses a nesting the reader would refuse.
        private static func measure(_ value: PlistValue, depth: Int, maximumDepth: Int, bytes: inout Int,
                                    keys: inout Int) throws(BinaryPropertyListError) -> Int {
            switch value {
            case .string(let s):
                // Room for UTF-16 (the writer sets aside two bytes per UTF-8 byte before it transcodes), so a
                // non-ASCII string does not make the output grow and copy itself midway.
                bytes += 2 * s.utf8.count + 10
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

        /// Gives a dictionary key an object number: that of the same key already written, or the next free one.
        private mutating func number(key: String) -> Int {
            let object = nextObject
            if key.utf8.count <= Self.sharedStringLength {
                for shared in sharedKeys where shared.key == key { return shared.object }
                if sharedKeys.count < Self.sharedLimit {
                    sharedKeys.append(SharedKey(key: key, object: object))
                } else {
                    if let shared = moreSharedKeys[key] { return shared }
                    moreSharedKeys[key] = object
                }
            }
            nextObject += 1
            return object
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
                // The references, then each item: all new objects, numbered in order.
                let first = nextObject
                nextObject += items.count
                header(0xA0, items.count)
                for index in items.indices { append(UInt64(first + index), width: refSize) }
                for (index, item) in items.enumerated() { emit(item, as: first + index) }
            case .dictionary(let entries):
                dictionary(entries.sorted { $0.key < $1.key })
            case .url(let url):
                dictionary([(urlMarkerKey, .string(url.absoluteString))])
            }
        }

        /// A dictionary of `entries` in their order: the marker, the keys' references then the values', then every
        /// key not yet written, then the values. A key numbered here is new, so its number is at least `firstKey`.
        private mutating func dictionary(_ entries: [(key: String, value: PlistValue)]) {
            let firstKey = nextObject
            var keyObjects: [Int] = []
            keyObjects.reserveCapacity(entries.count)
            for entry in entries { keyObjects.append(number(key: entry.key)) }
            let firstValue = nextObject
            nextObject += entries.count
            header(0xD0, entries.count)
            for object in keyObjects { append(UInt64(object), width: refSize) }
            for index in entries.indices { append(UInt64(firstValue + index), width: refSize) }
            for (entry, object) in zip(entries, keyObjects) where object >= firstKey {
                offsets[object] = output.count
                string(entry.key)
            }
            for (index, entry) in entries.enumerated() { emit(entry.value, as: firstValue + index) }
        }

        private mutating func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                if UTF16BigEndian.isASCII(utf8) {
                    header(0x50, utf8.count)
                    output.append(contentsOf: utf8)
                    return
                }
                // A scalar of n UTF-8 bytes makes one UTF-16 unit per byte at most and one per three at least. When
                // both bounds take the same header, that header is written and its count set once the units are
                // known: one pass over the string instead of a measure and then the transcoding.
                let most = utf8.count, least = (utf8.count + 2) / 3
                let start = output.count
                let units: Int
                if Self.headerLength(least) == Self.headerLength(most) {
                    header(0x60, most)
                    let body = output.count
                    output.append(contentsOf: repeatElement(0, count: 2 * most))
                    let written = output.withUnsafeMutableBytes { out in
                        UTF16BigEndian.encode(utf8, into: UnsafeMutableRawBufferPointer(rebasing: out[body...]))
                    }
                    output.removeLast(2 * most - written)
                    units = written / 2
                    setCount(units, ofHeaderAt: start)
                } else {
                    units = UTF16BigEndian.measure(utf8).units
                    header(0x60, units)
                    let body = output.count
                    output.append(contentsOf: repeatElement(0, count: 2 * units))
                    _ = output.withUnsafeMutableBytes { out in
                        UTF16BigEndian.encode(utf8, into: UnsafeMutableRawBufferPointer(rebasing: out[body...]))
                    }
                }
            }
        }

        /// The bytes `header(_:_:)` writes for `count`.
        private static func headerLength(_ count: Int) -> Int {
            count < 0x0F ? 1 : 2 + width(of: UInt64(count))
        }

        /// Rewrites the count of the header at `start` to `count`, which takes the same header length.
        private mutating func setCount(_ count: Int, ofHeaderAt start: Int) {
            guard count >= 0x0F else {
                output[start] = output[start] & 0xF0 | UInt8(count)
                return
            }
            let width = 1 << Int(output[start + 1] & 0x0F)
            for index in 0..<width {
                output[start + 2 + index] = UInt8(truncatingIfNeeded: count >> (8 * (width - 1 - index)))
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
