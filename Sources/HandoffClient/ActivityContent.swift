/// What the caller offers as its current activity: a type, a title and string user info.
public struct ActivityContent: Sendable, Equatable, Codable {
    /// The activity type, reverse-DNS (`org.handoff.note`); receivers only continue types they declare.
    public var type: String
    /// A short human title, shown by `handoff watch` and notifications.
    public var title: String
    /// The payload as string keys and values.
    public var userInfo: [String: String]

    /// Creates activity content.
    public init(type: String, title: String, userInfo: [String: String]) {
        self.type = type
        self.title = title
        self.userInfo = userInfo
    }
}

extension ActivityContent {
    /// The activity type of a note.
    public static let noteType = "org.handoff.note"

    /// userInfo keys of a note activity.
    public enum NoteKey {
        /// The note's file name without `.md`.
        public static let name = "name"
        /// The note's title (its first line).
        public static let title = "title"
        /// The note's full text.
        public static let content = "content"
    }

    /// A note as an activity: type ``noteType``, userInfo `name`, `title` and `content`.
    public static func note(name: String, title: String, content: String) -> ActivityContent {
        ActivityContent(
            type: noteType, title: title,
            userInfo: [NoteKey.name: name, NoteKey.title: title, NoteKey.content: content])
    }
}
