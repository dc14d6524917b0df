/// What `handoff watch` reports: the activities available when it starts, then each change, every availability
/// once.
///
/// A watcher subscribes to the daemon's signals first and reads the list second, so nothing that appears in
/// between is missed; an activity that appears in that gap then comes twice, in the list and as a signal, and is
/// shown once. A `disappeared` for an activity never shown says nothing the user saw, and is dropped.
public struct ActivityWatch: Sendable {
    private var shown: Set<ActivityID> = []

    /// A watch that has shown nothing yet.
    public init() {}

    /// The `appeared` events for what is available now, oldest first (by ``ActivitySummary/age``), as if the
    /// watch had been running when each appeared.
    public mutating func start(with available: [ActivitySummary]) -> [ActivityEvent] {
        available.sorted { $0.age > $1.age }.compactMap { admit(ActivityEvent(.appeared, $0)) }
    }

    /// `event` when it tells the user something new: an activity not shown yet appearing, or a shown one
    /// going away; nil otherwise.
    public mutating func admit(_ event: ActivityEvent) -> ActivityEvent? {
        switch event.event {
        case .appeared: shown.insert(event.activity.id).inserted ? event : nil
        case .disappeared: shown.remove(event.activity.id) != nil ? event : nil
        }
    }
}
