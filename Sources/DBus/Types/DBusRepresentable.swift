/// A Swift type with a fixed D-Bus type that converts to and from ``Value``.
///
/// The Swift basics, ``ObjectPath``, ``Signature``, ``UnixFileDescriptor``, ``Variant``, arrays and dictionaries
/// of representable types conform, so D-Bus containers read as ordinary Swift types:
///
/// | D-Bus          | Swift                                                  |
/// |----------------|--------------------------------------------------------|
/// | `a{sv}`        | `[String: Variant]`                                    |
/// | `a{oa{sa{sv}}}`| `[ObjectPath: [String: [String: Variant]]]`            |
/// | `ay`           | `[UInt8]`                                              |
///
/// Conform your own types (a struct for a D-Bus structure, an enum over a string) to use them the same way.
public protocol DBusRepresentable: Sendable {
    /// The D-Bus type every value of this Swift type has.
    static var dbusType: DBusType { get }

    /// Converts from a D-Bus value.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when `dbusValue` is of another type.
    init(dbusValue: Value) throws(DBusError)

    /// The D-Bus value.
    var dbusValue: Value { get }
}

extension DBusError {
    /// The error for a value of the wrong type.
    static func mismatch(_ value: Value, expected: DBusType) -> DBusError {
        DBusError(.typeMismatch, "expected a value of type '\(expected)', got '\(value.type)'")
    }
}
