import DBus
import HandoffDBusClient
import HandoffKit

/// An error the daemon replies with: an `org.handoff.Error.<Name>` and one line for the user.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name (`org.handoff.Error.AccessDenied`, …; see ``HandoffBusError``).
    public let name: ErrorName
    /// One line for the user.
    public let message: String

    /// Creates an error.
    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    /// A HandoffKit error: named after its code, its message starting with `[<code> <name>]`.
    public init(_ error: HandoffError) {
        self.init(HandoffBusError.name(forHandoffCode: error.code.name), error.description)
    }

    /// The reply sent over D-Bus.
    public var dbusError: DBusError { DBusError(name: name, message: message) }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }

    static func accessDenied(_ message: String) -> DaemonError { DaemonError(HandoffBusError.accessDenied, message) }
    static func invalidArguments(_ message: String) -> DaemonError {
        DaemonError(HandoffBusError.invalidArguments, message)
    }
    static func pairingFailed(_ message: String) -> DaemonError { DaemonError(HandoffBusError.pairingFailed, message) }
    static func failed(_ message: String) -> DaemonError { DaemonError(HandoffBusError.failed, message) }
}
