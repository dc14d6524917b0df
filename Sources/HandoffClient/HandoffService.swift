/// What the `handoff` CLI needs from the handoff daemon.
///
/// The daemon's D-Bus client implements this protocol; the CLI only ever talks to it through here, so the
/// commands are written and tested without a bus. Every method may throw ``ServiceError``; a lost connection is
/// ``ServiceError/Code/unreachable``.
public protocol HandoffService: Sendable {
    /// The daemon's state: version, adapter, counts and the caller's current activity.
    func status() async throws -> DaemonStatus

    /// Makes `activity` the caller's current activity, offered to nearby trusted devices, and returns its id.
    func setCurrentActivity(_ activity: ActivityContent) async throws -> ActivityID

    /// Replaces the content of the caller's current activity (called on every save of a note).
    func updateCurrentActivity(_ id: ActivityID, with content: ActivityContent) async throws

    /// Stops offering the activity once `grace` has passed (zero: now). The daemon keeps the timer, so the
    /// caller may exit at once.
    func resignCurrentActivity(_ id: ActivityID, after grace: Duration) async throws

    /// Activities nearby trusted devices currently offer, freshest first.
    func availableActivities() async throws -> [ActivitySummary]

    /// Fetches an available activity from its device, reporting progress, and returns its full content.
    /// Throws ``ServiceError/Code/continueFailed`` with the remote `didFailToContinue` code and message.
    /// `pauseSource` asks the source to pause what it plays once this device has the activity.
    func continueActivity(
        _ id: ActivityID, pauseSource: Bool,
        progress: @escaping @Sendable (ContinueProgress) -> Void
    ) async throws -> ContinuedActivity

    /// Paired devices, and whether each is in range now.
    func devices() async throws -> [DeviceInfo]

    /// Pairs with a nearby device in pairing mode. `confirm` shows the code both screens display and returns
    /// whether the user accepted it.
    func pair(confirm: @escaping @Sendable (PairingCode) async -> Bool) async throws -> DeviceInfo

    /// Forgets a paired device, given its id or name.
    func unpair(_ device: String) async throws

    /// Activities appearing and disappearing, until the stream is cancelled or the connection drops.
    func activityEvents() async throws -> AsyncThrowingStream<ActivityEvent, any Error>
}

/// What a client may ask that not every service knows: answered with nothing by default.
public protocol ActivityAppNaming: Sendable {
    /// The app this device declared for each activity type (`ActivityTypes`' `App`), by type; types without one
    /// are absent.
    func activityApps() async throws -> [String: String]
}

extension HandoffService {
    /// Continues `id`, asking nothing of its source.
    public func continueActivity(
        _ id: ActivityID, progress: @escaping @Sendable (ContinueProgress) -> Void
    ) async throws -> ContinuedActivity {
        try await continueActivity(id, pauseSource: false, progress: progress)
    }
}
