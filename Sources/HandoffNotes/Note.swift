import Foundation

/// A note read from the store: its metadata and its text.
public struct Note: Sendable, Equatable {
    /// Name, title, path, time, size and hash.
    public var metadata: NoteMetadata
    /// The full text.
    public var content: String

    /// Creates a note.
    public init(metadata: NoteMetadata, content: String) {
        self.metadata = metadata
        self.content = content
    }

    /// The note's name.
    public var name: NoteName { metadata.name }

    /// The note's title.
    public var title: String { metadata.title }

    /// The title of a note's text: its first line, without leading Markdown heading marks (`#`) and surrounding
    /// spaces. When that is empty (an empty note, or one starting with a blank line) the title is `fallback`,
    /// normally the note's name.
    public static func title(of content: String, fallback: String) -> String {
        let firstLine = content.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let title = firstLine.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
        return title.isEmpty ? fallback : title
    }
}
