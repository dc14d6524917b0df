import CDBus

/// A validated D-Bus type signature: a sequence of complete types, such as the `sa{sv}as` of a
/// `PropertiesChanged` signal. The empty signature (no arguments) is valid.
///
/// The text is checked by libdbus and parsed once into ``types``, a tree of ``DBusType``.
public struct Signature: Hashable, Sendable, CustomStringConvertible {
    /// The complete types, in order.
    public let types: [DBusType]
    /// The signature text.
    public let rawValue: String

    /// The empty signature.
    public static let empty = Signature(types: [])

    /// Parses and validates `text`.
    ///
    /// - Throws: ``DBusError`` `.invalidSignature` with libdbus's reason, e.g. for `a{vs}` (a variant key),
    ///   `(` (unterminated) or a signature longer than 255 bytes.
    public init(_ text: String) throws(DBusError) {
        if text.utf8.contains(0) {
            throw DBusError(.invalidSignature, "signature '\(text)' contains a NUL byte")
        }
        var cError = CDBus.DBusError()
        dbus_error_init(&cError)
        defer { dbus_error_free(&cError) }
        guard text.withCString({ dbus_signature_validate($0, &cError) }) != 0 else {
            let reason = cError.message.map { String(cString: $0) } ?? "invalid"
            throw DBusError(.invalidSignature, "signature '\(text)' is not valid: \(reason)")
        }
        var parser = SignatureParser(Array(text.utf8))
        self.types = try parser.parseAll()
        self.rawValue = text
    }

    /// A signature made of the given types.
    public init(types: [DBusType]) {
        self.types = types
        var text = ""
        for type in types { type.write(to: &text) }
        self.rawValue = text
    }

    /// The signature of the given Swift types, in order: `Signature(of: String.self, [UInt8].self)` is `say`.
    public init<each T: DBusRepresentable>(of types: repeat (each T).Type) {
        var list: [DBusType] = []
        for type in repeat each types { list.append(type.dbusType) }
        self.init(types: list)
    }

    /// The signature text.
    public var description: String { rawValue }
}

extension Signature: ExpressibleByStringLiteral {
    /// Creates a signature from a literal such as `"a{sv}"`.
    ///
    /// An invalid literal is a programming error and stops the program with a message; use ``init(_:)`` for
    /// text from outside.
    public init(stringLiteral value: String) {
        do {
            try self.init(value)
        } catch {
            preconditionFailure("invalid signature literal: \(error.message)")
        }
    }
}

/// A recursive-descent parser over signature bytes that libdbus has already validated.
struct SignatureParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseAll() throws(DBusError) -> [DBusType] {
        var types: [DBusType] = []
        while index < bytes.count {
            types.append(try parseOne())
        }
        return types
    }

    private mutating func next() throws(DBusError) -> UInt8 {
        guard index < bytes.count else {
            throw DBusError(.invalidSignature, "signature ends inside a container")
        }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func parseOne() throws(DBusError) -> DBusType {
        let code = try next()
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                index += 1
                let key = try parseOne()
                let value = try parseOne()
                guard try next() == UInt8(ascii: "}"), key.isBasic else {
                    throw DBusError(.invalidSignature, "malformed dictionary entry")
                }
                return .dictionary(key: key, value: value)
            }
            return .array(try parseOne())
        case UInt8(ascii: "("):
            var fields: [DBusType] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
                fields.append(try parseOne())
            }
            guard try next() == UInt8(ascii: ")"), !fields.isEmpty else {
                throw DBusError(.invalidSignature, "malformed structure")
            }
            return .structure(fields)
        default:
            throw DBusError(.invalidSignature, "unknown type code '\(Character(Unicode.Scalar(code)))'")
        }
    }
}
