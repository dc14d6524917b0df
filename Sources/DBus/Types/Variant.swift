/// A D-Bus variant (`v`): a value together with its own type.
///
/// Read one with ``get(_:)``: `let name = try properties["Name"]?.get(String.self)`.
public struct Variant: Sendable, Equatable, CustomStringConvertible {
    /// The wrapped value.
    public var value: Value

    /// Wraps an untyped value.
    public init(_ value: Value) {
        self.value = value
    }

    /// Wraps a typed Swift value, e.g. `Variant("hello")` or `Variant([UInt8](data))`.
    public init<T: DBusRepresentable>(_ value: T) {
        self.value = value.dbusValue
    }

    /// The type of the wrapped value.
    public var type: DBusType { value.type }

    /// Converts the wrapped value to `T`.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when the variant holds another type.
    public func get<T: DBusRepresentable>(_ type: T.Type = T.self) throws(DBusError) -> T {
        try T(dbusValue: value)
    }

    /// The signature and value, for debugging.
    public var description: String { "<\(value.type)> \(value)" }
}
