/// A change in what nearby devices offer, as streamed by `handoff watch --json`, one JSON object per line.
///
/// JSON: `{"activity":{…ActivitySummary…},"event":"appeared"}` or `{"activity":{…},"event":"disappeared"}`.
public struct ActivityEvent: Sendable, Equatable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A device started offering the activity, or updated it.
        case appeared
        /// The device stopped offering it or went out of range.
        case disappeared
    }

    /// What happened.
    public var event: Kind
    /// The activity concerned, as last known.
    public var activity: ActivitySummary

    /// Creates an event.
    public init(_ event: Kind, _ activity: ActivitySummary) {
        self.event = event
        self.activity = activity
    }
}
