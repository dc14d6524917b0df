/// Every failure HandoffKit reports: a code in Apple's NSUserActivity error range, a clear message, and the
/// activity type it concerns when there is one (failures are reported per activity type).
public struct HandoffError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The numeric error code; Apple's codes keep Apple's values, ours live in 4612...4863.
    public var code: Code
    /// A sentence that says what went wrong and, where possible, what to do about it.
    public var message: String
    /// The activity type the failure concerns, when known.
    public var activityType: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, activityType: String? = nil) {
        self.code = code
        self.message = message
        self.activityType = activityType
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

extension HandoffError {
    /// An error code. A struct rather than an enum so new codes can be added without breaking callers' switches.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value, as NSUserActivity's error domain uses it.
        public let rawValue: Int

        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Apple: the activity could not be continued (generic failure). 4608.
        public static let handoffFailed = Code(rawValue: 4608)
        /// Apple: the peer could not be reached or the link was lost and could not be resumed. 4609.
        public static let connectionUnavailable = Code(rawValue: 4609)
        /// Apple: the source device did not answer in time. 4610.
        public static let remoteApplicationTimedOut = Code(rawValue: 4610)
        /// Apple: the payload exceeds the configured hard limit. 4611.
        public static let userInfoTooLarge = Code(rawValue: 4611)
        /// The peer is not (or no longer) in this device's trust group. 4612.
        public static let untrustedPeer = Code(rawValue: 4612)
        /// The activity type is not among the app's declared activity types. 4613.
        public static let undeclaredActivityType = Code(rawValue: 4613)
        /// The peer speaks a wire-protocol version this build does not. 4614.
        public static let protocolVersionMismatch = Code(rawValue: 4614)
        /// Received bytes failed authentication or could not be decoded. 4615.
        public static let corruptPayload = Code(rawValue: 4615)
        /// The activity passed its expiration date. 4616.
        public static let activityExpired = Code(rawValue: 4616)
        /// The activity itself is unusable (bad type string, missing required userInfo key…). 4617.
        public static let invalidActivity = Code(rawValue: 4617)
        /// Pairing failed: commitment mismatch, rejected code, or both devices already in other groups. 4618.
        public static let pairingFailed = Code(rawValue: 4618)
        /// Stored trust state is malformed. 4619.
        public static let invalidTrustState = Code(rawValue: 4619)
        /// libsodium could not be initialised. 4620.
        public static let cryptoUnavailable = Code(rawValue: 4620)
        /// The radio refused an operation (link MTU too small, advertising failed…). 4621.
        public static let radioFailure = Code(rawValue: 4621)
        /// The receiving inbox has no room for the item (its quota is reached). 4622.
        public static let inboxFull = Code(rawValue: 4622)
        /// The shared item is larger than the receiving inbox takes. 4623.
        public static let itemTooLarge = Code(rawValue: 4623)

        /// The symbolic name of a known code, or "code N".
        public var name: String {
            switch rawValue {
            case 4608: "handoffFailed"
            case 4609: "connectionUnavailable"
            case 4610: "remoteApplicationTimedOut"
            case 4611: "userInfoTooLarge"
            case 4612: "untrustedPeer"
            case 4613: "undeclaredActivityType"
            case 4614: "protocolVersionMismatch"
            case 4615: "corruptPayload"
            case 4616: "activityExpired"
            case 4617: "invalidActivity"
            case 4618: "pairingFailed"
            case 4619: "invalidTrustState"
            case 4620: "cryptoUnavailable"
            case 4621: "radioFailure"
            case 4622: "inboxFull"
            case 4623: "itemTooLarge"
            default: "code \(rawValue)"
            }
        }

        /// Same as `name`.
        public var description: String { name }
    }
}
