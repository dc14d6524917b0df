import HandoffClient

/// The JSON printed by `handoff continue --print --json`: the continued activity with `ContinuedActivity`'s keys
/// (`summary`, `content`, `transport`, `fallback`, `app`), its userInfo's values with their JSON types
/// (``UserInfoValue``'s rule, Docs/usage.md "JSON output") rather than as text. A service that gives only text
/// (no ``ContinuedActivity/userInfoValues``) has its values printed as strings, as before.
struct ContinuedActivityReport: Encodable {
    /// `content`: the type, title and typed userInfo.
    struct Content: Encodable {
        let type: String
        let title: String
        let userInfo: [String: UserInfoValue]
    }

    let summary: ActivitySummary
    let content: Content
    let transport: String?
    let fallback: String?
    let app: String?

    init(_ continued: ContinuedActivity) {
        summary = continued.summary
        content = Content(type: continued.content.type, title: continued.content.title,
                          userInfo: Self.userInfo(of: continued))
        transport = continued.transport
        fallback = continued.fallback
        app = continued.app
    }

    /// The userInfo with its types, or its text as strings when the service gave no types.
    static func userInfo(of continued: ContinuedActivity) -> [String: UserInfoValue] {
        continued.userInfoValues ?? continued.content.userInfo.mapValues { .string($0) }
    }
}
