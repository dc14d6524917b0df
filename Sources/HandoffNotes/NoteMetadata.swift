import Foundation

/// What the store knows about a note without showing its content, as listed by `handoff note list --json`.
///
/// JSON: `{"modified":"2026-11-29T21:04:00Z","name":"groceries","path":"/home/u/.local/share/handoff/notes/
/// groceries.md","sha256":"…","sizeBytes":42,"title":"Groceries"}` (dates in ISO 8601, UTC).
public struct NoteMetadata: Sendable, Equatable, Codable {
    /// The note's name.
    public var name: NoteName
    /// Its title: the first line (see ``Note/title(of:fallback:)``).
    public var title: String
    /// The file's path.
    public var path: String
    /// When the file was last modified.
    public var modified: Date
    /// Its size in bytes.
    public var size: Int
    /// The SHA-256 of its bytes.
    public var hash: ContentHash

    /// Creates metadata.
    public init(name: NoteName, title: String, path: String, modified: Date, size: Int, hash: ContentHash) {
        self.name = name
        self.title = title
        self.path = path
        self.modified = modified
        self.size = size
        self.hash = hash
    }

    private enum CodingKeys: String, CodingKey {
        case name, title, path, modified
        case size = "sizeBytes"
        case hash = "sha256"
    }
}
