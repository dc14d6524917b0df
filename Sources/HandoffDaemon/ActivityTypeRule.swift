import FoundationEssentials
import HandoffKit
import HandoffShared

/// What the daemon adds to every activity of one declared type before offering it, as the system (not the app)
/// does on Apple's platforms: Universal Clipboard's two-minute lifetime, a browsing activity's `webpageURL`.
public struct ActivityTypeRule: Sendable, Equatable {
    /// How long an activity of the type lives: its `expirationDate` is set that far ahead (a peer that asks
    /// later is refused with `activityExpired`, 4616), and the daemon withdraws its beacon then.
    public var lifetime: Duration?
    /// The userInfo key whose string becomes the activity's `webpageURL`. An offer without it, or with a value
    /// that is not an absolute URL, is refused.
    public var webpageURLKey: String?

    /// Creates a rule.
    public init(lifetime: Duration? = nil, webpageURLKey: String? = nil) {
        self.lifetime = lifetime
        self.webpageURLKey = webpageURLKey
    }

    /// The rules of handoff's own types: a clipboard lives two minutes; a web page's `url` is its `webpageURL`.
    public static let defaults: [String: ActivityTypeRule] = [
        "org.handoff.clipboard": ActivityTypeRule(lifetime: .seconds(120)),
        "org.handoff.web": ActivityTypeRule(webpageURLKey: "url"),
    ]

    /// Applies the rule to `activity`, offered at `now`.
    /// - Throws: `DaemonError.invalidArguments` when the type's webpage URL is missing or not an absolute URL.
    public func apply(to activity: UserActivity, at now: Date) throws {
        if let lifetime {
            activity.expirationDate = now.addingTimeInterval(lifetime.timeInterval)
        }
        if let key = webpageURLKey {
            guard case .string(let text)? = activity.userInfo[key], let url = URL(string: text), url.scheme != nil
            else {
                throw DaemonError.invalidArguments(
                    "an activity of type \(activity.activityType) needs an absolute URL in userInfo['\(key)']")
            }
            activity.webpageURL = url
        }
    }
}
