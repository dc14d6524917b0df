/// What `HandoffEngine.continueActivity(_:progress:)` ended with.
public enum ContinuationOutcome: Sendable {
    /// The activity arrived over `transport` (the link that carried its last byte) and the delegate's `continue`
    /// returned `handled`.
    case continued(UserActivity, handled: Bool, transport: LinkTransport)
    /// `willContinue(activityType:)` returned false; nothing was fetched.
    case declined(activityType: String)
    /// It failed; the delegate's `didFailToContinue` got the same error.
    case failed(HandoffError)
}
