extension Variant: DBusRepresentable {
    /// `v`.
    public static var dbusType: DBusType { .variant }

    /// Reads a `.variant` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .variant(let variant) = dbusValue else { throw .mismatch(dbusValue, expected: .variant) }
        self = variant
    }

    /// The value as `.variant`.
    public var dbusValue: Value { .variant(self) }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
    /// `aT` for element type `T`.
    public static var dbusType: DBusType { .array(Element.dbusType) }

    /// Reads an array whose element type is `Element.dbusType`; `ay` arrives as raw bytes without a per-byte
    /// conversion.
    public init(dbusValue: Value) throws(DBusError) {
        switch dbusValue {
        case .bytes(let bytes):
            // Checked by type, not by casting: an empty array casts to any element type, and `as?` between
            // array types converts element by element (about 20 ns a byte when not specialised).
            guard Element.self == UInt8.self else { throw .mismatch(dbusValue, expected: Self.dbusType) }
            self = unsafeBitCast(bytes, to: [Element].self)
        case .array(let element, let items) where element == Element.dbusType:
            var result: [Element] = []
            result.reserveCapacity(items.count)
            for item in items { result.append(try Element(dbusValue: item)) }
            self = result
        default:
            throw .mismatch(dbusValue, expected: Self.dbusType)
        }
    }

    /// The array as `.array`, or `.bytes` for `[UInt8]`.
    public var dbusValue: Value {
        // Element is UInt8 here, so this is the same type: O(1), unlike an `as?` cast.
        if Element.self == UInt8.self { return .bytes(unsafeBitCast(self, to: [UInt8].self)) }
        return .array(Element.dbusType, map(\.dbusValue))
    }
}

extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
    /// `a{KV}`.
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }

    /// Reads a dictionary; on a repeated key the last entry wins, as most D-Bus bindings do.
    public init(dbusValue: DBus.Value) throws(DBusError) {
        guard case .dictionary(let keyType, let valueType, let entries) = dbusValue,
            keyType == Key.dbusType, valueType == Value.dbusType
        else { throw .mismatch(dbusValue, expected: Self.dbusType) }
        var result: [Key: Value] = [:]
        result.reserveCapacity(entries.count)
        for entry in entries {
            result[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
        }
        self = result
    }

    /// The dictionary as `.dictionary`, entries in the dictionary's iteration order.
    public var dbusValue: DBus.Value {
        .dictionary(
            key: Key.dbusType, value: Value.dbusType,
            map { DictionaryEntry(key: $0.key.dbusValue, value: $0.value.dbusValue) })
    }
}
