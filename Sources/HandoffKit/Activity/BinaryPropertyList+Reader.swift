import FoundationEssentials

extension BinaryPropertyList {
    /// Reads one binary property list. The trailer is checked whole before any object is read; each object is
    /// checked when it is reached from the root, so objects no reference reaches are never looked at.
    struct Reader {
        private let bytes: [UInt8]
        private let maximumDepth: Int
        private let offsetSize: Int
        private let refSize: Int
        private let objectCount: Int
        private let topObject: Int
        /// Where the offset table starts, which is also where the object area ends.
        private let objectEnd: Int
        /// The containers being decoded, from the root down: reaching one again is a cycle.
        private var onPath: [Bool]
        /// Values left to decode. Each reference costs at least one byte, so a tree decodes to fewer values than
        /// the input has bytes; only shared containers (a "billion laughs") can exceed that.
        private var budget: Int
        /// Decoded bytes left (`Limits.maximumDecodedSize`), charged before each value and each copy is made: a
        /// shared string or data costs its full size every time a reference reaches it.
        private var decodedBudget: Int
        private let maximumDecodedSize: Int

        init(_ bytes: [UInt8], limits: Limits) throws(BinaryPropertyListError) {
            guard bytes.count <= limits.maximumSize else {
                throw .tooLarge(size: bytes.count, limit: limits.maximumSize)
            }
            let trailer = bytes.count - trailerLength
            guard trailer > magic.count, bytes[0..<magic.count].elementsEqual(magic) else {
                throw .notBinaryPropertyList
            }
            let offsetSize = Int(bytes[trailer + 6])
            let refSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize) else { throw .invalidTrailer("offset width \(offsetSize)") }
            guard (1...8).contains(refSize) else { throw .invalidTrailer("reference width \(refSize)") }
            let count = Self.uint(bytes, at: trailer + 8, width: 8)
            let top = Self.uint(bytes, at: trailer + 16, width: 8)
            let table = Self.uint(bytes, at: trailer + 24, width: 8)
            guard count >= 1, count <= UInt64(trailer) else { throw .invalidTrailer("object count \(count)") }
            guard top < count else { throw .invalidTrailer("root object \(top) of \(count)") }
            guard table > UInt64(magic.count), table <= UInt64(trailer) else {
                throw .invalidTrailer("offset table at \(table)")
            }
            let tableEnd = Int(table) + Int(count) * offsetSize   // count <= trailer, so no overflow
            guard tableEnd <= trailer else { throw .invalidTrailer("the offset table runs into the trailer") }
            guard tableEnd == trailer else { throw .trailingBytes(count: trailer - tableEnd) }
            self.bytes = bytes
            self.maximumDepth = limits.maximumDepth
            self.offsetSize = offsetSize
            self.refSize = refSize
            self.objectCount = Int(count)
            self.topObject = Int(top)
            self.objectEnd = Int(table)
            self.onPath = [Bool](repeating: false, count: Int(count))
            self.budget = bytes.count
            self.decodedBudget = limits.maximumDecodedSize
            self.maximumDecodedSize = limits.maximumDecodedSize
        }

        /// Decodes the root object and everything it reaches.
        mutating func root() throws(BinaryPropertyListError) -> PlistValue {
            try value(topObject, depth: 0)
        }

        // MARK: objects

        private mutating func value(_ object: Int, depth: Int) throws(BinaryPropertyListError) -> PlistValue {
            budget -= 1
            guard budget >= 0 else { throw .tooManyValues(limit: bytes.count) }
            try charge(Limits.decodedValueCost)
            let start = try offset(of: object)
            let marker = bytes[start]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw .unsupportedObject(object: object, marker: marker)
                }
            case 0x1:
                return .integer(try integer(object, at: start))
            case 0x2:
                let width = 1 << Int(marker & 0x0F)
                guard width == 4 || width == 8 else { throw .unsupportedObject(object: object, marker: marker) }
                try need(object, start + 1, width)
                let bits = Self.uint(bytes, at: start + 1, width: width)
                return .real(width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
                                        : Double(bitPattern: bits))
            case 0x3:
                guard marker == 0x33 else { throw .unsupportedObject(object: object, marker: marker) }
                try need(object, start + 1, 8)
                let seconds = Double(bitPattern: Self.uint(bytes, at: start + 1, width: 8))
                guard seconds.isFinite else { throw .invalidDate(object: object) }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case 0x4:
                let (count, body) = try length(object, at: start)
                try need(object, body, count)
                try charge(count)
                return .data(Data(bytes[body..<(body + count)]))
            case 0x5, 0x6:
                return .string(try string(object, at: start))
            case 0xA:
                let (count, body) = try length(object, at: start)
                guard count <= (objectEnd - body) / refSize else { throw .truncatedObject(object: object) }
                try enter(object, depth: depth)
                var items: [PlistValue] = []
                items.reserveCapacity(capacity(count))
                for index in 0..<count {
                    items.append(try value(try reference(at: body + index * refSize), depth: depth + 1))
                }
                onPath[object] = false
                return .array(items)
            case 0xD:
                let (count, body) = try length(object, at: start)
                guard count <= (objectEnd - body) / (2 * refSize) else { throw .truncatedObject(object: object) }
                try enter(object, depth: depth)
                // Not `reserveCapacity`, which is not specialized and looks the dictionary's type up at run time.
                var entries = [String: PlistValue](minimumCapacity: capacity(count))
                for index in 0..<count {
                    let (key, item) = try entry(index, of: count, at: body, depth: depth)
                    guard entries.updateValue(item, forKey: key) == nil else {
                        throw .duplicateKey(object: object, key: key)
                    }
                }
                onPath[object] = false
                if entries.count == 1, case .string(let text)? = entries[urlMarkerKey] {
                    guard let url = URL(string: text) else { throw .invalidURL(object: object) }
                    return .url(url)
                }
                return .dictionary(entries)
            default:
                throw .unsupportedObject(object: object, marker: marker)
            }
        }

        /// Entry `index` of the `count` a dictionary at depth `depth` holds from `body`: its key and its value.
        private mutating func entry(_ index: Int, of count: Int, at body: Int, depth: Int)
            throws(BinaryPropertyListError) -> (key: String, value: PlistValue) {
            let keyObject = try reference(at: body + index * refSize)
            budget -= 1
            guard budget >= 0 else { throw .tooManyValues(limit: bytes.count) }
            try charge(Limits.decodedValueCost)
            let keyStart = try offset(of: keyObject)
            guard (0x5...0x6).contains(bytes[keyStart] >> 4) else { throw .nonStringKey(object: keyObject) }
            let key = try string(keyObject, at: keyStart)
            return (key, try value(try reference(at: body + (count + index) * refSize), depth: depth + 1))
        }

        /// The root dictionary's entries in the order written, for a caller that reads each once: what `root()`
        /// then `rootNotDictionary` for anything but a dictionary would give, with the same checks and errors in
        /// the same order, but without hashing the keys into a dictionary. Duplicate keys are found by comparing
        /// against the keys before (a set takes over for a root of more than 16).
        mutating func rootEntries() throws(BinaryPropertyListError) -> [(key: String, value: PlistValue)] {
            let start = try offset(of: topObject)
            guard bytes[start] >> 4 == 0xD else {
                _ = try root()
                throw .rootNotDictionary
            }
            budget -= 1
            try charge(Limits.decodedValueCost)
            let (count, body) = try length(topObject, at: start)
            guard count <= (objectEnd - body) / (2 * refSize) else { throw .truncatedObject(object: topObject) }
            try enter(topObject, depth: 0)
            var entries: [(key: String, value: PlistValue)] = []
            entries.reserveCapacity(capacity(count))
            var seen = Set<String>()
            for index in 0..<count {
                let (key, item) = try entry(index, of: count, at: body, depth: 0)
                let duplicate = count > 16 ? !seen.insert(key).inserted : entries.contains { $0.key == key }
                guard !duplicate else { throw .duplicateKey(object: topObject, key: key) }
                entries.append((key, item))
            }
            onPath[topObject] = false
            if entries.count == 1, entries[0].key == urlMarkerKey, case .string(let text) = entries[0].value {
                guard URL(string: text) != nil else { throw .invalidURL(object: topObject) }
                throw .rootNotDictionary
            }
            return entries
        }

        /// An integer object (`0x1n`): 1, 2 and 4 bytes are unsigned, 8 signed, 16 signed and kept if it fits.
        private func integer(_ object: Int, at start: Int) throws(BinaryPropertyListError) -> Int64 {
            let exponent = Int(bytes[start] & 0x0F)
            guard exponent <= 4 else { throw .integerOutOfRange(object: object) }
            let width = 1 << exponent
            try need(object, start + 1, width)
            if width <= 8 {
                let raw = Self.uint(bytes, at: start + 1, width: width)
                return width == 8 ? Int64(bitPattern: raw) : Int64(raw)
            }
            let high = Self.uint(bytes, at: start + 1, width: 8)
            let low = Int64(bitPattern: Self.uint(bytes, at: start + 9, width: 8))
            guard (high == 0 && low >= 0) || (high == .max && low < 0) else { throw .integerOutOfRange(object: object) }
            return low
        }

        /// An ASCII (`0x5n`, every byte below 0x80) or UTF-16 big-endian (`0x6n`, no unpaired surrogate) string.
        /// Charged against the decoded budget before it is copied: its bytes, or three per UTF-16 unit.
        private mutating func string(_ object: Int, at start: Int) throws(BinaryPropertyListError) -> String {
            let (count, body) = try length(object, at: start)
            let ascii = bytes[start] >> 4 == 0x5
            if ascii { try need(object, body, count) } else {
                guard count <= (objectEnd - body) / 2 else { throw .truncatedObject(object: object) }
            }
            try charge(ascii ? count : 3 * count)
            let text: String? = bytes.withUnsafeBufferPointer { all in
                if ascii {
                    let slice = UnsafeBufferPointer(rebasing: all[body..<(body + count)])
                    var high: UInt8 = 0
                    for byte in slice { high |= byte }
                    // Checked to be ASCII just above, so copied without `String(decoding:as:)`'s second scan.
                    return high < 0x80 ? String(copying: UTF8Span(unchecked: slice.span, isKnownASCII: true)) : nil
                }
                return UTF16BigEndian.decode(UnsafeBufferPointer(rebasing: all[body..<(body + 2 * count)]))
            }
            guard let text else { throw .invalidString(object: object) }
            return text
        }

        /// The element count in a marker's low nibble, or in the integer object after it when the nibble is 0xF,
        /// and where the content starts.
        private func length(_ object: Int, at start: Int) throws(BinaryPropertyListError) -> (count: Int, body: Int) {
            let nibble = Int(bytes[start] & 0x0F)
            guard nibble == 0x0F else { return (nibble, start + 1) }
            try need(object, start + 1, 1)
            let marker = bytes[start + 1]
            guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw .invalidLength(object: object) }
            let width = 1 << Int(marker & 0x0F)
            try need(object, start + 2, width)
            let count = Self.uint(bytes, at: start + 2, width: width)
            guard count <= UInt64(objectEnd) else { throw .truncatedObject(object: object) }
            return (Int(count), start + 2 + width)
        }

        // MARK: bounds

        /// Room for `count` elements, but never more than the decoded budget could still pay for: the storage is
        /// allocated before its elements are charged.
        private func capacity(_ count: Int) -> Int {
            min(count, max(decodedBudget, 0) / Limits.decodedValueCost)
        }

        /// Takes `size` decoded bytes from the budget, refusing the input once it is spent.
        private mutating func charge(_ size: Int) throws(BinaryPropertyListError) {
            decodedBudget -= size
            guard decodedBudget >= 0 else { throw .decodesTooLarge(limit: maximumDecodedSize) }
        }

        /// Marks a container as being decoded, refusing a cycle and too deep a nesting.
        private mutating func enter(_ object: Int, depth: Int) throws(BinaryPropertyListError) {
            guard depth <= maximumDepth else { throw .tooDeep(limit: maximumDepth) }
            guard !onPath[object] else { throw .cycle(object: object) }
            onPath[object] = true
        }

        /// Checks that `count` bytes from `start` lie inside the object area.
        private func need(_ object: Int, _ start: Int, _ count: Int) throws(BinaryPropertyListError) {
            guard start <= objectEnd, count <= objectEnd - start else { throw .truncatedObject(object: object) }
        }

        /// Where object `object` starts, from the offset table.
        private func offset(of object: Int) throws(BinaryPropertyListError) -> Int {
            let offset = Self.uint(bytes, at: objectEnd + object * offsetSize, width: offsetSize)
            guard offset >= UInt64(magic.count), offset < UInt64(objectEnd) else {
                throw .offsetOutOfBounds(object: object)
            }
            return Int(offset)
        }

        /// The object reference at `position` (inside the object area: callers checked the container's extent).
        private func reference(at position: Int) throws(BinaryPropertyListError) -> Int {
            let reference = Self.uint(bytes, at: position, width: refSize)
            guard reference < UInt64(objectCount) else { throw .referenceOutOfBounds(reference: Int(clamping: reference)) }
            return Int(reference)
        }

        /// A big-endian unsigned integer of `width` (1...8) bytes; the caller has checked the range.
        private static func uint(_ bytes: [UInt8], at start: Int, width: Int) -> UInt64 {
            switch width {
            case 1:
                return UInt64(bytes[start])
            case 2:
                return UInt64(bytes[start]) << 8 | UInt64(bytes[start + 1])
            default:
                var value: UInt64 = 0
                for index in start..<(start + width) { value = value << 8 | UInt64(bytes[index]) }
                return value
            }
        }
    }
}
