import HandoffShared

/// The one error type of the D-Bus layer.
///
/// A `DBusError` has a ``code`` saying what kind of failure happened, a human-readable ``message``, and, when the
/// failure came over the bus (or should go over it as an error reply), the D-Bus ``name`` such as
/// `org.freedesktop.DBus.Error.UnknownMethod`. Remote errors keep their name and text exactly as the peer sent them.
///
/// Method handlers of exported objects throw a `DBusError` with a ``name`` to reply with that error:
///
/// ```swift
/// throw DBusError(name: "org.bluez.Error.NotPermitted", message: "read is not allowed")
/// ```
public struct DBusError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added; switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case remote, disconnected, noReply, accessDenied, nameTaken, connectionFailed, typeMismatch
            case invalidSignature, invalidName, invalidValue, cancelled, outOfMemory
        }

        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The peer answered with an error reply; ``DBusError/name`` holds its name.
        public static let remote = Code(.remote)
        /// The connection is closed or was lost.
        public static let disconnected = Code(.disconnected)
        /// No reply came: the call timed out, or the peer left the bus without replying.
        public static let noReply = Code(.noReply)
        /// The bus policy or the peer refused (for example a `RequestName` that the policy forbids).
        public static let accessDenied = Code(.accessDenied)
        /// A requested well-known name is owned by another connection and queueing was not allowed.
        public static let nameTaken = Code(.nameTaken)
        /// The bus could not be reached or the authentication failed.
        public static let connectionFailed = Code(.connectionFailed)
        /// A value had a different D-Bus type than the one asked for.
        public static let typeMismatch = Code(.typeMismatch)
        /// A type signature is malformed.
        public static let invalidSignature = Code(.invalidSignature)
        /// An object path, bus, interface, member or error name is malformed.
        public static let invalidName = Code(.invalidName)
        /// A value cannot be sent (a string with a NUL byte, an array element of the wrong type, a closed fd…).
        public static let invalidValue = Code(.invalidValue)
        /// The waiting task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// libdbus ran out of memory.
        public static let outOfMemory = Code(.outOfMemory)

        /// The code's name, e.g. `noReply`.
        public var description: String { kind.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The D-Bus error name, when the error came from (or is meant for) the bus.
    public var name: ErrorName?
    /// A human-readable explanation.
    public var message: String
    /// The underlying error, if this one wraps another.
    public var cause: (any Error & Sendable)?

    /// Creates an error of a given code.
    public init(_ code: Code, _ message: String, name: ErrorName? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.name = name
        self.cause = cause
    }

    /// Creates an error with a D-Bus name, as a method handler does to send that error reply.
    ///
    /// The code follows from the name for the standard names (NoReply → `.noReply`, AccessDenied →
    /// `.accessDenied`, …) and is `.remote` otherwise.
    public init(name: ErrorName, message: String) {
        self.init(Self.code(for: name), message, name: name)
    }

    /// The standard error for a name received on the bus.
    static func code(for name: ErrorName) -> Code {
        switch name {
        case .noReply, .timeout: return .noReply
        case .disconnected: return .disconnected
        case .accessDenied: return .accessDenied
        case .noMemory: return .outOfMemory
        default: return .remote
        }
    }

    /// The error name to use when this error becomes an error reply of an exported method.
    var replyName: ErrorName {
        if let name { return name }
        switch code {
        case .typeMismatch, .invalidSignature, .invalidName, .invalidValue: return .invalidArgs
        case .accessDenied: return .accessDenied
        case .outOfMemory: return .noMemory
        default: return .failed
        }
    }

    /// `name: message`, or `code: message` for errors without a D-Bus name.
    public var description: String {
        if let name { return "\(name): \(message)" }
        return "DBusError.\(code): \(message)"
    }
}

extension DBusError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: name?.rawValue ?? "DBusError.\(code)", message: message) }
}
