import HandoffShared

/// An error from the handoff daemon or from reaching it, with the chain of causes the daemon sent (``cause``).
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure; the CLI maps each to an exit code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case unreachable, noActivity, continueFailed, unknownDevice, pairingFailed, permissionDenied, failed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// No daemon answers (not running, no bus, or refused by the bus policy).
        public static let unreachable = Code(.unreachable)
        /// No available activity matches (none nearby, or none of the requested type or device).
        public static let noActivity = Code(.noActivity)
        /// The activity could not be continued; ``ServiceError/remoteCode`` holds the `didFailToContinue` code.
        public static let continueFailed = Code(.continueFailed)
        /// No paired device has that id or name.
        public static let unknownDevice = Code(.unknownDevice)
        /// Pairing was refused, timed out or found nobody.
        public static let pairingFailed = Code(.pairingFailed)
        /// The daemon refused the caller.
        public static let permissionDenied = Code(.permissionDenied)
        /// Any other failure the daemon reported.
        public static let failed = Code(.failed)

        /// The kind's name, for logs and tests.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// One line for the user.
    public let message: String
    /// The code the remote side reported (`didFailToContinue`'s error code, a D-Bus error name), if any.
    public let remoteCode: String?
    /// What the failure wraps: the causes the daemon reported (as ``ReportedError``s) or a local error.
    public let cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, remoteCode: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.remoteCode = remoteCode
        self.cause = cause
    }

    /// Equal when code, message and remote code are; the cause is not compared.
    public static func == (lhs: ServiceError, rhs: ServiceError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.remoteCode == rhs.remoteCode
    }

    /// The causes, top first, each `[kind] message`.
    package var causes: [ErrorLink] { ErrorChain.causes(of: self) }

    /// The message, with the remote code when there is one.
    public var description: String {
        remoteCode.map { "\(message) [\($0)]" } ?? message
    }
}

extension ServiceError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: "ServiceError.\(code)", message: description) }
}
