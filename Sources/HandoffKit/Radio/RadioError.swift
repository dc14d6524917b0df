/// Failures a radio reports; the engine maps them to `HandoffError`s.
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
    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    /// The message.
    public var description: String { "radio: \(message)" }
}
