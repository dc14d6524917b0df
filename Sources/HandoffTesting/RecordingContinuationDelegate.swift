import HandoffKit
import HandoffShared

/// A `ContinuationDelegate` that records every call, for assertions.
public final class RecordingContinuationDelegate: ContinuationDelegate {
    /// One recorded call.
    public enum Call: Sendable {
        /// `willContinue(activityType:)`.
        case willContinue(String)
        /// `continue(_:restorationHandler:)`.
        case `continue`(UserActivity)
        /// `didFailToContinue(activityType:error:)`.
        case didFail(String, HandoffError)
        /// `didUpdate(_:)`.
        case didUpdate(UserActivity)
    }

    private let state = Locked(State())

    private struct State {
        var calls: [Call] = []
        var acceptedTypes: Set<String>?
        var restorers: [any UserActivityRestoring] = []
    }

    /// A delegate that accepts every type and handles every activity.
    public init() {}

    /// Everything called so far, in order.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// The failures reported so far.
    public var failures: [(activityType: String, error: HandoffError)] {
        calls.compactMap { if case .didFail(let t, let e) = $0 { (t, e) } else { nil } }
    }

    /// Types `willContinue` accepts (nil: all).
    public func accept(only types: Set<String>?) {
        state.withLock { $0.acceptedTypes = types }
    }

    /// Objects passed to the restoration handler on `continue`.
    public func restore(with restorers: [any UserActivityRestoring]) {
        state.withLock { $0.restorers = restorers }
    }

    /// Records and answers.
    public func willContinue(activityType: String) -> Bool {
        state.withLock {
            $0.calls.append(.willContinue(activityType))
            return $0.acceptedTypes.map { $0.contains(activityType) } ?? true
        }
    }

    /// Records, passes the configured restorers to the handler, returns true.
    public func `continue`(_ activity: UserActivity,
                           restorationHandler: @escaping @Sendable ([any UserActivityRestoring]) -> Void) -> Bool {
        let restorers = state.withLock {
            $0.calls.append(.continue(activity))
            return $0.restorers
        }
        restorationHandler(restorers)
        return true
    }

    /// Records.
    public func didFailToContinue(activityType: String, error: HandoffError) {
        state.withLock { $0.calls.append(.didFail(activityType, error)) }
    }

    /// Records.
    public func didUpdate(_ activity: UserActivity) {
        state.withLock { $0.calls.append(.didUpdate(activity)) }
    }
}
