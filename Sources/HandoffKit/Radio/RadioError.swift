import HandoffShared

/// Failures a radio reports; the engine maps them to `HandoffError`s, keeping them as their ``HandoffError/cause``.
public struct RadioError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The peer cannot be reached.
        case unreachable
        /// The link went down.
        case disconnected
        /// A value exceeded the MTU or 512 bytes.
        case valueTooLong
        /// Anything else the stack reported.
        case failed
    }
    /// The kind.
    public var kind: Kind
    /// A clear message.
    public var message: String
    /// The stack's own error this one wraps (a BlueZ or L2CAP failure), if any.
    public var cause: (any Error)?
    /// Creates an error.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }
    /// Equal when kind and message are; the cause is not compared.
    public static func == (lhs: RadioError, rhs: RadioError) -> Bool { lhs.kind == rhs.kind && lhs.message == rhs.message }
    /// The message.
    public var description: String { "radio: \(message)" }
}

extension RadioError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: "RadioError.\(kind)", message: message) }
}
