import FoundationEssentials

/// Every transferable property of a `UserActivity`, as one value (what the payload carries).
package struct ActivitySnapshot: Sendable, Equatable {
    package var activityType: String
    package var title: String?
    package var userInfo: [String: PlistValue] = [:]
    package var requiredUserInfoKeys: Set<String>?
    package var isEligibleForHandoff = true
    package var webpageURL: URL?
    package var expirationDate: Date?
    package var keywords: Set<String> = []
    package var persistentIdentifier: String?
    package var targetContentIdentifier: String?

    /// A snapshot of type `activityType` with every other property at its default.
    package init(activityType: String) {
        self.activityType = activityType
    }

    /// Required keys absent from userInfo, sorted.
    var missingRequiredKeys: [String] {
        (requiredUserInfoKeys ?? []).filter { userInfo[$0] == nil }.sorted()
    }

    /// Whether the activity has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        expirationDate.map { $0 <= now } ?? false
    }
}
