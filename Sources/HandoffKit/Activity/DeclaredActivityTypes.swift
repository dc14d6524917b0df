/// The activity types an app supports, as Info.plist's `NSUserActivityTypes` declares them on Apple platforms.
/// An activity whose type is not declared can neither become current nor be continued.
public struct DeclaredActivityTypes: Sendable, Hashable, Codable {
    /// Longest accepted activity type, in UTF-8 bytes (it travels in one sealed record).
    public static let maximumTypeLength = 200

    /// The declared types.
    public let types: Set<String>

    /// Declares `types`; each must be non-empty, at most `maximumTypeLength` UTF-8 bytes, without control characters.
    public init(_ types: some Sequence<String>) throws(HandoffError) {
        var set = Set<String>()
        for type in types {
            try DeclaredActivityTypes.validate(type)
            set.insert(type)
        }
        self.types = set
    }

    /// Whether `type` is declared.
    public func contains(_ type: String) -> Bool { types.contains(type) }

    /// Throws `undeclaredActivityType` unless `type` is declared.
    public func require(_ type: String) throws(HandoffError) {
        guard contains(type) else {
            throw HandoffError(.undeclaredActivityType,
                               "the activity type is not declared; add it to the app's declared activity types "
                                   + "(declared: \(types.sorted().joined(separator: ", ")))", activityType: type)
        }
    }

    /// Checks that `type` is usable as an activity type.
    public static func validate(_ type: String) throws(HandoffError) {
        if type.isEmpty {
            throw HandoffError(.invalidActivity, "an activity type must not be empty")
        }
        if type.utf8.count > maximumTypeLength {
            throw HandoffError(.invalidActivity, "an activity type must be at most \(maximumTypeLength) UTF-8 bytes",
                               activityType: String(type.prefix(40)))
        }
        if type.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw HandoffError(.invalidActivity, "an activity type must not contain control characters")
        }
    }
}
