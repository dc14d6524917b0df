import CDBus

/// An object path such as `/org/handoff/Note1`.
///
/// The text is validated on creation, so a value of this type is always well formed on the wire.
/// Valid: `/org/handoff/Note1`. Invalid: org/handoff (no leading slash), /a//b, /a/ (trailing slash).
public struct ObjectPath: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The validated text.
    public let rawValue: String

    /// Validates `rawValue`; returns nil when it is not a valid object path.
    public init?(rawValue: String) {
        do {
            try validateName(rawValue, kind: "object path", with: { dbus_validate_path($0, $1) })
        } catch {
            return nil
        }
        self.rawValue = rawValue
    }

    /// Validates `string`, throwing a DBusError with code `.invalidName` and libdbus's reason if it is invalid.
    public init(_ string: String) throws(DBusError) {
        try validateName(string, kind: "object path", with: { dbus_validate_path($0, $1) })
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

    /// Element by element, a parent before its children, and runs of digits compared by value, so that
    /// `app/service0/char2` comes before `app/service0/char10` (the order `export` numbers objects in).
    static func inExportOrder(_ lhs: Self, _ rhs: Self) -> Bool {
        let left = lhs.rawValue.split(separator: "/"), right = rhs.rawValue.split(separator: "/")
        for (a, b) in zip(left, right) where a != b { return naturalLess(a, b) }
        return left.count < right.count
    }

    private static func naturalLess(_ a: Substring, _ b: Substring) -> Bool {
        let aPrefix = a.prefix { !$0.isASCII || !$0.isNumber }, bPrefix = b.prefix { !$0.isASCII || !$0.isNumber }
        if aPrefix == bPrefix, let x = UInt64(a.dropFirst(aPrefix.count)), let y = UInt64(b.dropFirst(bPrefix.count)),
           x != y {
            return x < y
        }
        return a < b
    }
}

extension ObjectPath: ExpressibleByStringLiteral {
    /// Creates a name from a literal in source code.
    ///
    /// A literal is written by the programmer, so an invalid one is a programming error and stops the program
    /// with a message naming it, as an out-of-range array index would. Use init(_:) for text from outside.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid object path literal: \(error.message)")
        }
    }
}
