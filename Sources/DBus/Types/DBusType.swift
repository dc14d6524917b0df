/// One complete D-Bus type, as a tree: `a{sv}` is `.array(.dictionaryEntry…)` written here as
/// `.dictionary(key: .string, value: .variant)`.
///
/// Parse a type from its signature text with ``init(_:)`` or ``Signature``; print it with ``description``.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    /// `y`, an unsigned 8-bit integer.
    case byte
    /// `b`, a boolean.
    case boolean
    /// `n`, a signed 16-bit integer.
    case int16
    /// `q`, an unsigned 16-bit integer.
    case uint16
    /// `i`, a signed 32-bit integer.
    case int32
    /// `u`, an unsigned 32-bit integer.
    case uint32
    /// `x`, a signed 64-bit integer.
    case int64
    /// `t`, an unsigned 64-bit integer.
    case uint64
    /// `d`, an IEEE 754 double.
    case double
    /// `s`, a UTF-8 string without NUL bytes.
    case string
    /// `o`, an object path.
    case objectPath
    /// `g`, a type signature.
    case signature
    /// `h`, a Unix file descriptor passed over the socket.
    case unixFD
    /// `v`, a value that carries its own type.
    case variant
    /// `aT`, an array of one element type (other than a dictionary entry, see ``dictionary(key:value:)``).
    case array(DBusType)
    /// `a{KV}`, an array of dictionary entries with a basic key type.
    case dictionary(key: DBusType, value: DBusType)
    /// `(T…)`, a structure of one or more fields.
    case structure([DBusType])

    /// Parses one complete type, such as `a{sv}`.
    ///
    /// - Throws: ``DBusError`` `.invalidSignature` when the text is not exactly one valid complete type.
    public init(_ text: String) throws(DBusError) {
        let signature = try Signature(text)
        guard signature.types.count == 1, let only = signature.types.first else {
            throw DBusError(.invalidSignature, "'\(text)' is not a single complete type")
        }
        self = only
    }

    /// True for the types a dictionary key may have: every type except containers and variants.
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: return false
        default: return true
        }
    }

    /// The type code libdbus uses for the outermost type (`DBUS_TYPE_*`).
    var typeCode: Int32 {
        switch self {
        case .byte: return TypeCode.byte
        case .boolean: return TypeCode.boolean
        case .int16: return TypeCode.int16
        case .uint16: return TypeCode.uint16
        case .int32: return TypeCode.int32
        case .uint32: return TypeCode.uint32
        case .int64: return TypeCode.int64
        case .uint64: return TypeCode.uint64
        case .double: return TypeCode.double
        case .string: return TypeCode.string
        case .objectPath: return TypeCode.objectPath
        case .signature: return TypeCode.signature
        case .unixFD: return TypeCode.unixFD
        case .variant: return TypeCode.variant
        case .array, .dictionary: return TypeCode.array
        case .structure: return TypeCode.structure
        }
    }

    /// The signature text, e.g. `a{sv}`.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    func write(to text: inout String) {
        switch self {
        case .byte: text += "y"
        case .boolean: text += "b"
        case .int16: text += "n"
        case .uint16: text += "q"
        case .int32: text += "i"
        case .uint32: text += "u"
        case .int64: text += "x"
        case .uint64: text += "t"
        case .double: text += "d"
        case .string: text += "s"
        case .objectPath: text += "o"
        case .signature: text += "g"
        case .unixFD: text += "h"
        case .variant: text += "v"
        case .array(let element):
            text += "a"
            element.write(to: &text)
        case .dictionary(let key, let value):
            text += "a{"
            key.write(to: &text)
            value.write(to: &text)
            text += "}"
        case .structure(let fields):
            text += "("
            for field in fields { field.write(to: &text) }
            text += ")"
        }
    }
}

/// libdbus's `DBUS_TYPE_*` codes; the C macros are casts that Swift does not import.
enum TypeCode {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let boolean = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let structure = Int32(UInt8(ascii: "r"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
}
