/// What `HandoffEngine.continueActivity(_:)` ended with.
public enum ContinuationOutcome: Sendable {
    /// The activity arrived and the delegate's `continue` returned `handled`.
    case continued(UserActivity, handled: Bool)
    /// `willContinue(activityType:)` returned false; nothing was fetched.
    case declined(activityType: String)
    /// It failed; the delegate's `didFailToContinue` got the same error.
    case failed(HandoffError)
}
