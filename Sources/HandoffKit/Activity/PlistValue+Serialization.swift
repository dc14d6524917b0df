import FoundationEssentials

extension PlistValue {
    /// The dictionary key that marks a URL inside a property list.
    package static let urlMarkerKey = BinaryPropertyList.urlMarkerKey

    /// Maximum nesting accepted when decoding, so a hostile plist cannot exhaust the stack.
    static let maximumDepth = BinaryPropertyList.Limits.standard.maximumDepth

    /// Serialises a dictionary as a binary property list (`bplist00`) with ``BinaryPropertyList``.
    /// Throws `invalidActivity` for a value nested deeper than a reader accepts.
    public static func binaryPropertyList(from dictionary: [String: PlistValue]) throws(HandoffError) -> Data {
        do {
            return Data(try BinaryPropertyList.encode(.dictionary(dictionary)))
        } catch {
            throw HandoffError(.invalidActivity, "userInfo cannot be written as a property list", cause: error)
        }
    }

    /// Serialises the dictionary of `entries`, whose keys must be distinct, as `binaryPropertyList(from:)` would.
    static func binaryPropertyList(entries: [(key: String, value: PlistValue)]) throws(HandoffError) -> Data {
        do {
            return Data(try BinaryPropertyList.encode(entries: entries))
        } catch {
            throw HandoffError(.invalidActivity, "userInfo cannot be written as a property list", cause: error)
        }
    }

    /// Parses a binary property list whose root is a dictionary, with the strict ``BinaryPropertyList`` reader.
    /// Throws `corruptPayload`, saying why, for anything else (XML and other formats included).
    public static func dictionary(fromPropertyList data: Data) throws(HandoffError) -> [String: PlistValue] {
        do {
            // Copied through its buffer: `[UInt8](data)` goes element by element through Data's generic path.
            let bytes = data.withUnsafeBytes { [UInt8]($0) }
            return try BinaryPropertyList.decodeDictionary(bytes)
        } catch {
            throw HandoffError(.corruptPayload, "the payload is not a valid binary property list", cause: error)
        }
    }

    /// The root entries of a binary property list whose root is a dictionary, in the order written; what
    /// `dictionary(fromPropertyList:)` accepts and refuses, with the same errors.
    static func entries(fromPropertyList data: Data) throws(HandoffError) -> [(key: String, value: PlistValue)] {
        do {
            let bytes = data.withUnsafeBytes { [UInt8]($0) }
            return try BinaryPropertyList.decodeRootEntries(bytes)
        } catch {
            throw HandoffError(.corruptPayload, "the payload is not a valid binary property list", cause: error)
        }
    }
}
