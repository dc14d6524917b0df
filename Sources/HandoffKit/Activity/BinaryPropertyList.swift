/// A strict reader and writer of binary property lists (`bplist00`), for the values `PlistValue` holds.
///
/// Every byte that decodes here came from outside: a local caller's `userInfo` on the D-Bus API, or a peer's
/// payload over the air. So the reader owns its bounds instead of trusting a general-purpose parser: offsets,
/// reference and offset widths, object counts, nesting depth, reference cycles, duplicate keys, bytes past the
/// offset table and the total size are all checked, and every refusal is a ``BinaryPropertyListError``. It never
/// traps and never falls back to another format. It is bounded whatever the input's shape: in depth
/// (`Limits.maximumDepth`), in values (no more than the input has bytes), and in bytes: the decoded value, each
/// shared reference counted at its full size every time it is used, may not exceed `Limits.maximumDecodedSize`,
/// and that is checked before each string or data is copied. So the time it takes and the memory it allocates
/// grow with the input and that budget, never with the number of references to one object.
///
/// The subset is the one `PlistValue` can represent and Python's `plistlib` writes: dictionaries with string
/// keys, arrays, ASCII and UTF-16 strings, data, integers of up to 64 bits (plistlib's 128-bit form is read when
/// the value fits `Int64`), reals, booleans and dates. Sets, UIDs, `null` and fill bytes are refused.
package enum BinaryPropertyList {
    /// What the reader accepts, and the nesting the writer refuses to exceed.
    package struct Limits: Sendable, Equatable {
        /// The largest input, in bytes.
        package var maximumSize: Int
        /// The deepest nesting of arrays and dictionaries (the root is level 0).
        package var maximumDepth: Int
        /// The most bytes the decoded value may hold: every value costs ``decodedValueCost``, every string its
        /// UTF-8 bytes (three per UTF-16 unit, the most it can take, counted before it is decoded), every data
        /// its bytes, and a shared object as much again each time another reference reaches it.
        package var maximumDecodedSize: Int

        package init(maximumSize: Int = 16 << 20, maximumDepth: Int = 64, maximumDecodedSize: Int = 32 << 20) {
            self.maximumSize = maximumSize
            self.maximumDepth = maximumDepth
            self.maximumDecodedSize = maximumDecodedSize
        }

        /// 16 MiB in, 64 levels, 32 MiB decoded: above the 1 MiB payload limit (whose decoded tree is about its
        /// size), below anything that could exhaust the stack or a small machine's memory.
        package static let standard = Limits()

        /// What each decoded value costs against `maximumDecodedSize` besides its content: about its slot in
        /// the array or dictionary that holds it.
        package static let decodedValueCost = 16
    }

    /// The eight bytes every binary property list starts with.
    static let magic: [UInt8] = Array("bplist00".utf8)
    /// The length of the trailer that ends every binary property list.
    static let trailerLength = 32
    /// The dictionary key that marks a URL inside a property list.
    static let urlMarkerKey = "$handoff.url"

    /// Decodes `bytes`, whose root may be any value.
    package static func decode(_ bytes: [UInt8], limits: Limits = .standard) throws(BinaryPropertyListError) -> PlistValue {
        var reader = try Reader(bytes, limits: limits)
        return try reader.root()
    }

    /// Decodes `bytes`, whose root must be a dictionary.
    package static func decodeDictionary(_ bytes: [UInt8], limits: Limits = .standard)
        throws(BinaryPropertyListError) -> [String: PlistValue] {
        guard case .dictionary(let dictionary) = try decode(bytes, limits: limits) else {
            throw .rootNotDictionary
        }
        return dictionary
    }

    /// Decodes `bytes`, whose root must be a dictionary, into its entries in the order written: the checks and
    /// errors of `decodeDictionary`, without building the dictionary.
    static func decodeRootEntries(_ bytes: [UInt8], limits: Limits = .standard)
        throws(BinaryPropertyListError) -> [(key: String, value: PlistValue)] {
        var reader = try Reader(bytes, limits: limits)
        return try reader.rootEntries()
    }

    /// Encodes `value`. Dictionary keys are written sorted, so equal values give equal bytes. Throws only for a
    /// value nested deeper than `limits.maximumDepth`, which the reader would refuse.
    package static func encode(_ value: PlistValue, limits: Limits = .standard) throws(BinaryPropertyListError) -> [UInt8] {
        var writer = Writer(limits: limits)
        return try writer.write(value)
    }

    /// Encodes the dictionary of `entries`, whose keys must be distinct: the bytes `encode(.dictionary(…))` gives,
    /// for a caller that has its entries at hand and need not build a dictionary.
    static func encode(entries: [(key: String, value: PlistValue)], limits: Limits = .standard)
        throws(BinaryPropertyListError) -> [UInt8] {
        var writer = Writer(limits: limits)
        return try writer.write(entries: entries)
    }
}

/// Why bytes are not a binary property list this reader accepts. Object numbers index the offset table.
package enum BinaryPropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input is larger than `Limits.maximumSize`.
    case tooLarge(size: Int, limit: Int)
    /// The input does not start with `bplist00`, or is too short to hold a header and a trailer.
    case notBinaryPropertyList
    /// The trailer's widths, counts or offsets are impossible.
    case invalidTrailer(String)
    /// Bytes lie between the offset table and the trailer.
    case trailingBytes(count: Int)
    /// An offset-table entry points outside the object area.
    case offsetOutOfBounds(object: Int)
    /// A reference names an object the table does not have.
    case referenceOutOfBounds(reference: Int)
    /// An object's content runs past the object area.
    case truncatedObject(object: Int)
    /// A marker this reader does not accept (sets, UIDs, null, fill, unknown types).
    case unsupportedObject(object: Int, marker: UInt8)
    /// A length that is not a one-to-eight-byte integer marker.
    case invalidLength(object: Int)
    /// An ASCII string with a byte above 0x7F, or UTF-16 with an unpaired surrogate.
    case invalidString(object: Int)
    /// An integer outside `Int64`, or of a width the format does not have.
    case integerOutOfRange(object: Int)
    /// A date that is not a finite number of seconds.
    case invalidDate(object: Int)
    /// A dictionary key that is not a string.
    case nonStringKey(object: Int)
    /// A dictionary holding the same key twice (as Swift compares strings).
    case duplicateKey(object: Int, key: String)
    /// A container that contains itself.
    case cycle(object: Int)
    /// Containers nested deeper than `Limits.maximumDepth`.
    case tooDeep(limit: Int)
    /// Shared references that would decode to more values than the input has bytes.
    case tooManyValues(limit: Int)
    /// Shared references that would decode to more than `Limits.maximumDecodedSize` bytes.
    case decodesTooLarge(limit: Int)
    /// A `{"$handoff.url": …}` marker whose string is not a URL.
    case invalidURL(object: Int)
    /// The root is not a dictionary, where one is required.
    case rootNotDictionary

    package var description: String {
        switch self {
        case .tooLarge(let size, let limit): "\(size) bytes, above the limit of \(limit)"
        case .notBinaryPropertyList: "not a binary property list (no bplist00 header and trailer)"
        case .invalidTrailer(let why): "bad trailer: \(why)"
        case .trailingBytes(let count): "\(count) bytes between the offset table and the trailer"
        case .offsetOutOfBounds(let object): "object \(object)'s offset is out of range"
        case .referenceOutOfBounds(let reference): "reference \(reference) is past the offset table"
        case .truncatedObject(let object): "object \(object) runs past the end of the objects"
        case .unsupportedObject(let object, let marker):
            "object \(object) has unsupported object type 0x" + String(marker, radix: 16)
        case .invalidLength(let object): "object \(object) has a malformed length"
        case .invalidString(let object): "object \(object) is not a valid string"
        case .integerOutOfRange(let object): "object \(object) is an integer outside 64 bits"
        case .invalidDate(let object): "object \(object) is not a finite date"
        case .nonStringKey(let object): "a dictionary key is not a string (object \(object))"
        case .duplicateKey(let object, let key): "dictionary \(object) holds the key \"\(key.prefix(40))\" twice"
        case .cycle(let object): "object \(object) contains itself"
        case .tooDeep(let limit): "nests deeper than \(limit) levels"
        case .tooManyValues(let limit): "shared references expand to more than \(limit) values"
        case .decodesTooLarge(let limit):
            "decodes to more than \(limit) bytes (each reference to a shared object counts its full size)"
        case .invalidURL(let object): "object \(object) is a URL marker whose string is not a URL"
        case .rootNotDictionary: "the root is not a dictionary"
        }
    }
}
