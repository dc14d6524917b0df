extension UInt8: DBusRepresentable {
    /// `byte` in D-Bus terms.
    public static var dbusType: DBusType { .byte }

    /// Reads a `.byte` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .byte(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .byte) }
        self = value
    }

    /// The value as `.byte`.
    public var dbusValue: Value { .byte(self) }
}

extension Bool: DBusRepresentable {
    /// `boolean` in D-Bus terms.
    public static var dbusType: DBusType { .boolean }

    /// Reads a `.boolean` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .boolean(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .boolean) }
        self = value
    }

    /// The value as `.boolean`.
    public var dbusValue: Value { .boolean(self) }
}

extension Int16: DBusRepresentable {
    /// `int16` in D-Bus terms.
    public static var dbusType: DBusType { .int16 }

    /// Reads a `.int16` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .int16(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .int16) }
        self = value
    }

    /// The value as `.int16`.
    public var dbusValue: Value { .int16(self) }
}

extension UInt16: DBusRepresentable {
    /// `uint16` in D-Bus terms.
    public static var dbusType: DBusType { .uint16 }

    /// Reads a `.uint16` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .uint16(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .uint16) }
        self = value
    }

    /// The value as `.uint16`.
    public var dbusValue: Value { .uint16(self) }
}

extension Int32: DBusRepresentable {
    /// `int32` in D-Bus terms.
    public static var dbusType: DBusType { .int32 }

    /// Reads a `.int32` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .int32(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .int32) }
        self = value
    }

    /// The value as `.int32`.
    public var dbusValue: Value { .int32(self) }
}

extension UInt32: DBusRepresentable {
    /// `uint32` in D-Bus terms.
    public static var dbusType: DBusType { .uint32 }

    /// Reads a `.uint32` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .uint32(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .uint32) }
        self = value
    }

    /// The value as `.uint32`.
    public var dbusValue: Value { .uint32(self) }
}

extension Int64: DBusRepresentable {
    /// `int64` in D-Bus terms.
    public static var dbusType: DBusType { .int64 }

    /// Reads a `.int64` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .int64(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .int64) }
        self = value
    }

    /// The value as `.int64`.
    public var dbusValue: Value { .int64(self) }
}

extension UInt64: DBusRepresentable {
    /// `uint64` in D-Bus terms.
    public static var dbusType: DBusType { .uint64 }

    /// Reads a `.uint64` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .uint64(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .uint64) }
        self = value
    }

    /// The value as `.uint64`.
    public var dbusValue: Value { .uint64(self) }
}

extension Double: DBusRepresentable {
    /// `double` in D-Bus terms.
    public static var dbusType: DBusType { .double }

    /// Reads a `.double` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .double(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .double) }
        self = value
    }

    /// The value as `.double`.
    public var dbusValue: Value { .double(self) }
}

extension String: DBusRepresentable {
    /// `string` in D-Bus terms.
    public static var dbusType: DBusType { .string }

    /// Reads a `.string` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .string(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .string) }
        self = value
    }

    /// The value as `.string`.
    public var dbusValue: Value { .string(self) }
}

extension ObjectPath: DBusRepresentable {
    /// `objectPath` in D-Bus terms.
    public static var dbusType: DBusType { .objectPath }

    /// Reads a `.objectPath` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .objectPath(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .objectPath) }
        self = value
    }

    /// The value as `.objectPath`.
    public var dbusValue: Value { .objectPath(self) }
}

extension Signature: DBusRepresentable {
    /// `signature` in D-Bus terms.
    public static var dbusType: DBusType { .signature }

    /// Reads a `.signature` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .signature(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .signature) }
        self = value
    }

    /// The value as `.signature`.
    public var dbusValue: Value { .signature(self) }
}

extension UnixFileDescriptor: DBusRepresentable {
    /// `unixFD` in D-Bus terms.
    public static var dbusType: DBusType { .unixFD }

    /// Reads a `.unixFD` value.
    public init(dbusValue: Value) throws(DBusError) {
        guard case .unixFD(let value) = dbusValue else { throw .mismatch(dbusValue, expected: .unixFD) }
        self = value
    }

    /// The value as `.unixFD`.
    public var dbusValue: Value { .unixFD(self) }
}
