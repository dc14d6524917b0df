import CDBus

/// An error name such as `org.freedesktop.DBus.Error.InvalidArgs`.
///
/// The text is validated on creation, so a value of this type is always well formed on the wire.
/// Valid: `org.freedesktop.DBus.Error.Failed`. Invalid: Failed (one element).
public struct ErrorName: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated text.
    public let rawValue: String

    /// Validates `rawValue`; returns nil when it is not a valid error name.
    public init?(rawValue: String) {
        do {
            try validateName(rawValue, kind: "error name", with: { dbus_validate_error_name($0, $1) })
        } catch {
            return nil
        }
        self.rawValue = rawValue
    }

    /// Validates `string`, throwing a DBusError with code `.invalidName` and libdbus's reason if it is invalid.
    public init(_ string: String) throws(DBusError) {
        try validateName(string, kind: "error name", with: { dbus_validate_error_name($0, $1) })
        self.rawValue = string
    }

    /// Wraps text already known to be valid (it came from libdbus, which validated it).
    init(trusted string: String) {
        self.rawValue = string
    }

    /// The text, as sent on the wire.
    public var description: String { rawValue }

    /// Orders by the text.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ErrorName: ExpressibleByStringLiteral {
    /// Creates a name from a literal in source code.
    ///
    /// A literal is written by the programmer, so an invalid one is a programming error and stops the program
    /// with a message naming it, as an out-of-range array index would. Use init(_:) for text from outside.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid error name literal: \(error.message)")
        }
    }
}
