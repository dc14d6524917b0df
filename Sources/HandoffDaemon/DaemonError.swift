import DBus
import HandoffBusContract
import HandoffKit
import HandoffShared

/// An error the daemon replies with: an `org.handoff.Error.<Name>` and one line for the user.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name (`org.handoff.Error.AccessDenied`, …; see ``HandoffBusError``).
    public let name: ErrorName
    /// One line for the user.
    public let message: String
    /// The lower error, whose chain the reply carries after the message (``ErrorChain/busText(message:causes:)``).
    public let cause: (any Error)?

    /// Creates an error.
    public init(_ name: ErrorName, _ message: String, cause: (any Error)? = nil) {
        self.name = name
        self.message = message
        self.cause = cause
    }

    /// A HandoffKit error: named after its code, its message starting with `[<code> <name>]`, its cause kept.
    public init(_ error: HandoffError) {
        self.init(HandoffBusError.name(forHandoffCode: error.code.name), error.description, cause: error.cause)
    }

    /// The reply sent over D-Bus: the message, then a line per cause.
    public var dbusError: DBusError {
        DBusError(name: name, message: ErrorChain.busText(message: message, causes: ErrorChain.causes(of: self)))
    }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }

    static func accessDenied(_ message: String) -> DaemonError { DaemonError(HandoffBusError.accessDenied, message) }
    static func invalidArguments(_ message: String) -> DaemonError {
        DaemonError(HandoffBusError.invalidArguments, message)
    }
    static func pairingFailed(_ message: String) -> DaemonError { DaemonError(HandoffBusError.pairingFailed, message) }
    static func failed(_ message: String, cause: (any Error)? = nil) -> DaemonError {
        DaemonError(HandoffBusError.failed, message, cause: cause)
    }
}

extension DaemonError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: name.rawValue, message: message) }
}
