import Foundation

extension PlistValue {
    /// The dictionary key that marks a URL inside a property list.
    package static let urlMarkerKey = "$handoff.url"

    /// Serialises a dictionary as a binary property list (`bplist00`) through PropertyListSerialization.
    public static func binaryPropertyList(from dictionary: [String: PlistValue]) throws -> Data {
        do {
            return try PropertyListSerialization.data(fromPropertyList: PlistValue.dictionary(dictionary).foundationObject,
                                                      format: .binary, options: 0)
        } catch {
            throw HandoffError(.invalidActivity, "userInfo cannot be written as a property list: \(error)")
        }
    }

    /// Parses a binary property list whose root is a dictionary. Never traps on bad input: the structure is
    /// checked by `BinaryPlistValidator` before Foundation sees it.
    public static func dictionary(fromPropertyList data: Data) throws -> [String: PlistValue] {
        try BinaryPlistValidator.validate([UInt8](data))
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw HandoffError(.corruptPayload, "the payload is not a property list")
        }
        guard case .dictionary(let dictionary) = try PlistValue(foundationObject: object, depth: 0) else {
            throw HandoffError(.corruptPayload, "the payload's property list root is not a dictionary")
        }
        return dictionary
    }

    /// The Foundation object graph PropertyListSerialization expects.
    var foundationObject: Any {
        switch self {
        case .string(let v): v
        case .integer(let v): NSNumber(value: v)
        case .real(let v): NSNumber(value: v)
        case .bool(let v): v
        case .date(let v): v
        case .data(let v): v
        case .array(let v): v.map(\.foundationObject)
        case .dictionary(let v): v.mapValues(\.foundationObject)
        case .url(let v): [PlistValue.urlMarkerKey: v.absoluteString]
        }
    }

    /// Maximum nesting accepted when decoding, so a hostile plist cannot exhaust the stack.
    static let maximumDepth = 64

    /// Rebuilds a typed value from what PropertyListSerialization returned.
    init(foundationObject object: Any, depth: Int) throws {
        guard depth <= PlistValue.maximumDepth else {
            throw HandoffError(.corruptPayload, "the property list nests deeper than \(PlistValue.maximumDepth) levels")
        }
        if type(of: object) == Bool.self, let b = object as? Bool {
            self = .bool(b)
        } else if let s = object as? String {
            self = .string(s)
        } else if let d = object as? Data {
            self = .data(d)
        } else if let d = object as? Date {
            self = .date(d)
        } else if let n = object as? NSNumber {
            self = try PlistValue(number: n)
        } else if let d = object as? Double {
            self = .real(d)
        } else if let a = object as? [Any] {
            self = .array(try a.map { try PlistValue(foundationObject: $0, depth: depth + 1) })
        } else if let m = object as? [String: Any] {
            if m.count == 1, let s = m[PlistValue.urlMarkerKey] as? String {
                guard let url = URL(string: s) else {
                    throw HandoffError(.corruptPayload, "the payload holds a URL that does not parse: \(s.prefix(80))")
                }
                self = .url(url)
            } else {
                self = .dictionary(try m.mapValues { try PlistValue(foundationObject: $0, depth: depth + 1) })
            }
        } else {
            throw HandoffError(.corruptPayload, "the payload holds an unsupported property-list value (\(type(of: object)))")
        }
    }

    private init(number n: NSNumber) throws {
        let kind = String(cString: n.objCType)
        switch kind {
        case "d", "f":
            self = .real(n.doubleValue)
        case "B":
            self = .bool(n.boolValue)
        case "Q", "L", "I", "S", "C":
            guard n.uint64Value <= UInt64(Int64.max) else {
                throw HandoffError(.corruptPayload, "the payload holds an integer above Int64.max (\(n.uint64Value))")
            }
            self = .integer(Int64(n.uint64Value))
        default:
            self = .integer(n.int64Value)
        }
    }
}
