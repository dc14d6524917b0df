/// An activity fetched from another device: its summary and its full content.
public struct ContinuedActivity: Sendable, Equatable, Codable {
    /// What was continued.
    public var summary: ActivitySummary
    /// The full content, as the other device last saved it.
    public var content: ActivityContent

    /// Creates a continued activity.
    public init(summary: ActivitySummary, content: ActivityContent) {
        self.summary = summary
        self.content = content
    }
}
