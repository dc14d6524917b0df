import HandoffShared

/// Every failure HandoffKit reports: a code in Apple's NSUserActivity error range, a clear message, the
/// activity type it concerns when there is one (failures are reported per activity type), and the lower error it
/// wraps (a ``RadioError``, a disk failure...) as its ``cause``.
public struct HandoffError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The numeric error code; Apple's codes keep Apple's values, ours live in 4612...4863.
    public var code: Code
    /// A sentence that says what went wrong and, where possible, what to do about it.
    public var message: String
    /// The activity type the failure concerns, when known.
    public var activityType: String?
    /// The lower error this one wraps, if any: why it happened, where ``message`` says what.
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, activityType: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.activityType = activityType
        self.cause = cause
    }

    /// Equal when code, message and activity type are; the cause is detail for the reader and is not compared.
    public static func == (lhs: HandoffError, rhs: HandoffError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.activityType == rhs.activityType
    }

    /// The same error, attributed to `activityType`.
    public func about(_ activityType: String?) -> HandoffError {
        var copy = self
        if copy.activityType == nil { copy.activityType = activityType }
        return copy
    }

    /// `"[4611 userInfoTooLarge] com.example.note: the payload is 2 MiB…"`.
    public var description: String {
        let type = activityType.map { "\($0): " } ?? ""
        return "[\(code.rawValue) \(code.name)] \(type)\(message)"
    }
}

extension HandoffError: CausedError {
    package var link: ErrorLink { ErrorLink(kind: "HandoffError.\(code.name)", message: description) }
}

extension HandoffError {
    /// An error code. A struct rather than an enum so new codes can be added without breaking callers' switches.
    /// Each known code's name and number are declared once, in ``Known``; the constants below and ``name`` read
    /// them from there.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value, as NSUserActivity's error domain uses it.
        public let rawValue: Int

        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The code declared as `known`.
        init(_ known: Known) { self.init(rawValue: known.rawValue) }

        /// Every code HandoffKit knows: the case is its name and the raw value its number. Apple's codes keep
        /// Apple's values (4608...4611); ours follow, within 4612...4863. The compiler refuses a number used twice.
        enum Known: Int, CaseIterable, Sendable {
            case handoffFailed = 4608, connectionUnavailable, remoteApplicationTimedOut, userInfoTooLarge
            case untrustedPeer, undeclaredActivityType, protocolVersionMismatch, corruptPayload, activityExpired
            case invalidActivity, pairingFailed, invalidTrustState, cryptoUnavailable, radioFailure, inboxFull
            case itemTooLarge

            /// The case's name, as the error's description and the D-Bus error names spell it.
            var name: String { String(describing: self) }
        }

        /// Apple: the activity could not be continued (generic failure).
        public static let handoffFailed = Code(.handoffFailed)
        /// Apple: the peer could not be reached or the link was lost and could not be resumed.
        public static let connectionUnavailable = Code(.connectionUnavailable)
        /// Apple: the source device did not answer in time.
        public static let remoteApplicationTimedOut = Code(.remoteApplicationTimedOut)
        /// Apple: the payload exceeds the configured hard limit.
        public static let userInfoTooLarge = Code(.userInfoTooLarge)
        /// The peer is not (or no longer) in this device's trust group.
        public static let untrustedPeer = Code(.untrustedPeer)
        /// The activity type is not among the app's declared activity types.
        public static let undeclaredActivityType = Code(.undeclaredActivityType)
        /// The peer speaks a wire-protocol version this build does not.
        public static let protocolVersionMismatch = Code(.protocolVersionMismatch)
        /// Received bytes failed authentication or could not be decoded.
        public static let corruptPayload = Code(.corruptPayload)
        /// The activity passed its expiration date.
        public static let activityExpired = Code(.activityExpired)
        /// The activity itself is unusable (bad type string, missing required userInfo key…).
        public static let invalidActivity = Code(.invalidActivity)
        /// Pairing failed: commitment mismatch, rejected code, or both devices already in other groups.
        public static let pairingFailed = Code(.pairingFailed)
        /// Stored trust state is malformed.
        public static let invalidTrustState = Code(.invalidTrustState)
        /// libsodium could not be initialised.
        public static let cryptoUnavailable = Code(.cryptoUnavailable)
        /// The radio refused an operation (link MTU too small, advertising failed…).
        public static let radioFailure = Code(.radioFailure)
        /// The receiving inbox has no room for the item (its quota is reached).
        public static let inboxFull = Code(.inboxFull)
        /// The shared item is larger than the receiving inbox takes.
        public static let itemTooLarge = Code(.itemTooLarge)

        /// The symbolic name of a known code (`userInfoTooLarge`), or "code N".
        public var name: String { Known(rawValue: rawValue)?.name ?? "code \(rawValue)" }

        /// Same as `name`.
        public var description: String { name }
    }
}
