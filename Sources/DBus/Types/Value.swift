/// Any D-Bus value, with its type.
///
/// Containers carry their element types, so an empty array still knows it is an `as` and not an `ai`.
/// Arrays of bytes (`ay`) always decode as ``bytes(_:)``, which the layer marshals with one copy; an
/// `.array(.byte, …)` is accepted when sending.
///
/// Most code does not build `Value`s by hand: Swift types conforming to ``DBusRepresentable`` convert with
/// `dbusValue` and `init(dbusValue:)`.
public indirect enum Value: Sendable, Equatable {
    /// `y`
    case byte(UInt8)
    /// `b`
    case boolean(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`; sending a string that contains a NUL byte fails with `.invalidValue`.
    case string(String)
    /// `o`
    case objectPath(ObjectPath)
    /// `g`
    case signature(Signature)
    /// `h`, an owned file descriptor.
    case unixFD(UnixFileDescriptor)
    /// `v`
    case variant(Variant)
    /// `ay`, kept as raw bytes.
    case bytes([UInt8])
    /// `aT`, with the element type `T` (not a dictionary entry; see ``dictionary(key:value:_:)``).
    case array(DBusType, [Value])
    /// `a{KV}`, entries in wire order.
    case dictionary(key: DBusType, value: DBusType, [DictionaryEntry])
    /// `(…)`, one value per field.
    case structure([Value])

    /// The value's complete type.
    public var type: DBusType {
        switch self {
        case .byte: return .byte
        case .boolean: return .boolean
        case .int16: return .int16
        case .uint16: return .uint16
        case .int32: return .int32
        case .uint32: return .uint32
        case .int64: return .int64
        case .uint64: return .uint64
        case .double: return .double
        case .string: return .string
        case .objectPath: return .objectPath
        case .signature: return .signature
        case .unixFD: return .unixFD
        case .variant: return .variant
        case .bytes: return .array(.byte)
        case .array(let element, _): return .array(element)
        case .dictionary(let key, let value, _): return .dictionary(key: key, value: value)
        case .structure(let fields): return .structure(fields.map(\.type))
        }
    }
}
