import HandoffKit
import HandoffShared

/// A `UserActivityDelegate` that counts calls and can run a closure in `userActivityWillSave`.
public final class RecordingActivityDelegate: UserActivityDelegate {
    private let state = Locked(State())

    private struct State {
        var willSaveCount = 0
        var wasContinuedCount = 0
        var continuedRequests: [ContinuationRequests] = []
        var advertiseFailures: [HandoffError] = []
        var onWillSave: (@Sendable (UserActivity) -> Void)?
    }

    /// A delegate that only counts.
    public init(onWillSave: (@Sendable (UserActivity) -> Void)? = nil) {
        state.withLock { $0.onWillSave = onWillSave }
    }

    /// Number of `userActivityWillSave` calls.
    public var willSaveCount: Int { state.withLock { $0.willSaveCount } }
    /// Number of `userActivityWasContinued` calls.
    public var wasContinuedCount: Int { state.withLock { $0.wasContinuedCount } }
    /// What each continue asked of the source (`[]` for a plain DONE), in order.
    public var continuedRequests: [ContinuationRequests] { state.withLock { $0.continuedRequests } }
    /// Errors passed to `didFailToAdvertise`.
    public var advertiseFailures: [HandoffError] { state.withLock { $0.advertiseFailures } }

    /// Counts, then runs the closure (outside the lock).
    public func userActivityWillSave(_ activity: UserActivity) {
        let body = state.withLock {
            $0.willSaveCount += 1
            return $0.onWillSave
        }
        body?(activity)
    }

    /// Counts.
    public func userActivityWasContinued(_ activity: UserActivity) {
        userActivityWasContinued(activity, requests: [])
    }

    /// Counts, and records the requests.
    public func userActivityWasContinued(_ activity: UserActivity, requests: ContinuationRequests) {
        state.withLock {
            $0.wasContinuedCount += 1
            $0.continuedRequests.append(requests)
        }
    }

    /// Records.
    public func userActivity(_ activity: UserActivity, didFailToAdvertise error: HandoffError) {
        state.withLock { $0.advertiseFailures.append(error) }
    }
}
