import HandoffKit

/// The daemon's receiving side: it accepts every declared type (the engine refuses the others) and logs failures.
/// The CLI does the restoring; the daemon only hands the activity over.
final class DaemonContinuationDelegate: ContinuationDelegate {
    let logger: DaemonLogger

    init(logger: DaemonLogger) {
        self.logger = logger
    }

    func `continue`(_ activity: UserActivity,
                    restorationHandler: @escaping @Sendable ([any UserActivityRestoring]) -> Void) -> Bool {
        true
    }

    func didFailToContinue(activityType: String, error: HandoffError) {
        logger.warning("could not continue \(activityType): \(error)")
    }
}
