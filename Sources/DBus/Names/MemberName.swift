import CDBus

/// A method, signal or property name such as `GetManagedObjects`.
///
/// The text is validated on creation, so a value of this type is always well formed on the wire.
/// Valid: `GetAll, Value_1`. Invalid: Get.All (dot), 1Get (leading digit), empty.
public struct MemberName: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated text.
    public let rawValue: String

    /// Validates `rawValue`; returns nil when it is not a valid member name.
    public init?(rawValue: String) {
        do {
            try validateName(rawValue, kind: "member name", with: { dbus_validate_member($0, $1) })
        } catch {
            return nil
        }
        self.rawValue = rawValue
    }

    /// Validates `string`, throwing a DBusError with code `.invalidName` and libdbus's reason if it is invalid.
    public init(_ string: String) throws(DBusError) {
        try validateName(string, kind: "member name", with: { dbus_validate_member($0, $1) })
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

extension MemberName: ExpressibleByStringLiteral {
    /// Creates a name from a literal in source code.
    ///
    /// A literal is written by the programmer, so an invalid one is a programming error and stops the program
    /// with a message naming it, as an out-of-range array index would. Use init(_:) for text from outside.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid member name literal: \(error.message)")
        }
    }
}
