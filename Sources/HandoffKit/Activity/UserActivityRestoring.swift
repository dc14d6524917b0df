/// Something the receiving app restores from a continued activity, as UIUserActivityRestoring.
public protocol UserActivityRestoring: Sendable {
    /// Restores this object's state from `activity` (for example fills a note editor).
    func restoreUserActivityState(_ activity: UserActivity)
}
