/// The receiving app's side of Handoff, as the UIApplicationDelegate continuation methods.
public protocol ContinuationDelegate: AnyObject, Sendable {
    /// Asked before any payload moves. Return false to decline this activity type now.
    func willContinue(activityType: String) -> Bool
    /// The activity arrived. Restore state, or pass objects to `restorationHandler` to have
    /// `restoreUserActivityState(_:)` called on them. Return true when the activity was handled.
    func `continue`(_ activity: UserActivity,
                    restorationHandler: @escaping @Sendable ([any UserActivityRestoring]) -> Void) -> Bool
    /// The activity of type `activityType` could not be continued; `error.code` says why.
    func didFailToContinue(activityType: String, error: HandoffError)
    /// An activity owned by this app was updated: its state was saved and sent to a peer.
    func didUpdate(_ activity: UserActivity)
}

extension ContinuationDelegate {
    /// Default: accept every declared type.
    public func willContinue(activityType: String) -> Bool { true }
    /// Default: ignore.
    public func didUpdate(_ activity: UserActivity) {}
}
