/// An activity fetched from another device: its summary and its full content.
public struct ContinuedActivity: Sendable, Equatable, Codable {
    /// What was continued.
    public var summary: ActivitySummary
    /// The full content, as the other device last saved it; its userInfo as text (``userInfoValues`` keeps the
    /// types).
    public var content: ActivityContent
    /// The same userInfo with each value's type, when the service gives it (the daemon's client does); nil from
    /// one that gives only text. Not part of this type's `Codable` form, which has always held the text.
    public var userInfoValues: [String: UserInfoValue]?
    /// The path the bytes took: `l2cap` or `gatt` (nil from a daemon that does not say).
    public var transport: String?
    /// Why a GATT transfer did not use the L2CAP channel: `no-psm`, `refused`, `no-le-coc`, `channel-failed`.
    public var fallback: String?
    /// The app this device declared for the activity's type, when one did (`ContinueActivity`'s `App`).
    public var app: String?

    /// Creates a continued activity.
    public init(summary: ActivitySummary, content: ActivityContent, transport: String? = nil, fallback: String? = nil) {
        self.summary = summary
        self.content = content
        self.transport = transport
        self.fallback = fallback
    }

    /// The keys of the `Codable` form: every stored property but ``userInfoValues``.
    private enum CodingKeys: String, CodingKey {
        case summary, content, transport, fallback, app
    }
}
