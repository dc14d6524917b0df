/// The source app's delegate for one `UserActivity`, as NSUserActivityDelegate.
public protocol UserActivityDelegate: AnyObject, Sendable {
    /// Called just before the activity's payload is serialised for a peer, when `needsSave` is true.
    /// Bring `userInfo` up to date here (`addUserInfoEntries(from:)`).
    func userActivityWillSave(_ activity: UserActivity)
    /// Called on the source after a trusted peer has received and accepted the activity.
    func userActivityWasContinued(_ activity: UserActivity)
    /// Called instead when the peer asked something of the source as it took the activity (``ContinuationRequests``,
    /// e.g. `pauseSource`); by default the same as ``userActivityWasContinued(_:)``.
    func userActivityWasContinued(_ activity: UserActivity, requests: ContinuationRequests)
    /// Called when an update could not be advertised (for example it grew beyond the payload limit).
    func userActivity(_ activity: UserActivity, didFailToAdvertise error: HandoffError)
}

extension UserActivityDelegate {
    /// Default: nothing to save.
    public func userActivityWillSave(_ activity: UserActivity) {}
    /// Default: ignore.
    public func userActivityWasContinued(_ activity: UserActivity) {}
    /// Default: as a continue without requests.
    public func userActivityWasContinued(_ activity: UserActivity, requests: ContinuationRequests) {
        userActivityWasContinued(activity)
    }
    /// Default: ignore.
    public func userActivity(_ activity: UserActivity, didFailToAdvertise error: HandoffError) {}
}
