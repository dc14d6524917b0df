import HandoffKit
import HandoffShared

/// The daemon's receiving side: it accepts every declared type (the engine refuses the others) and logs failures.
/// The CLI does the restoring; the daemon only hands the activity over. It is also the delegate of every activity
/// the daemon offers, so that the source's log says once when a trusted peer took one (a valid DONE): the one
/// thing a user, or a scenario counting it, sees of a continuation on the source's side.
final class DaemonContinuationDelegate: ContinuationDelegate, UserActivityDelegate {
    let logger: DaemonLogger
    /// Told of every continue of an activity the daemon offers, with what the receiver asked (the daemon signals
    /// the app that offered it: `CurrentActivityContinued`). Set once the daemon runs.
    let continued = Locked<(@Sendable (UserActivity, ContinuationRequests) -> Void)?>(nil)

    init(logger: DaemonLogger) {
        self.logger = logger
    }

    func `continue`(_ activity: UserActivity,
                    restorationHandler: @escaping @Sendable ([any UserActivityRestoring]) -> Void) -> Bool {
        true
    }

    func didFailToContinue(activityType: String, error: HandoffError) {
        logger.warning("could not continue \(activityType): \(ErrorChain.text(error))")
    }

    func userActivityWasContinued(_ activity: UserActivity) {
        userActivityWasContinued(activity, requests: [])
    }

    func userActivityWasContinued(_ activity: UserActivity, requests: ContinuationRequests) {
        let asked = requests.contains(.pauseSource) ? ", which asked to pause the source" : ""
        logger.log("offered \(activity.activityType) was continued on a paired device\(asked)")
        continued.withLock { $0 }?(activity, requests)
    }
}
