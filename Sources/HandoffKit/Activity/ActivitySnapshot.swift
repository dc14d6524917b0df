import Foundation

/// Every transferable property of a `UserActivity`, as one value (what the payload carries).
struct ActivitySnapshot: Sendable, Equatable {
    var activityType: String
    var title: String?
    var userInfo: [String: PlistValue] = [:]
    var requiredUserInfoKeys: Set<String>?
    var isEligibleForHandoff = true
    var webpageURL: URL?
    var expirationDate: Date?
    var keywords: Set<String> = []
    var persistentIdentifier: String?
    var targetContentIdentifier: String?

    /// Required keys absent from userInfo, sorted.
    var missingRequiredKeys: [String] {
        (requiredUserInfoKeys ?? []).filter { userInfo[$0] == nil }.sorted()
    }

    /// Whether the activity has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        expirationDate.map { $0 <= now } ?? false
    }
}
