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

    /// The longest title, in characters; a longer first line is cut there and ends with `…`.
    public static let maximumTitleLength = 80

    /// The title of a note's text: its first line, without leading Markdown heading marks (`#`) and surrounding
    /// spaces, cut to ``maximumTitleLength`` characters. When that is empty (an empty note, or one starting with a
    /// blank line) the title is `fallback`, normally the note's name.
    ///
    /// The cut matters for a note without line breaks: its whole text would otherwise be its title, and the title
    /// travels with every offer, in `handoff watch` lines and in notifications.
    /// A byte-order mark the file starts with (kept in the text, see ``text(utf8:)``) is not part of the title.
    public static func title(of content: String, fallback: String) -> String {
        let text = content.unicodeScalars.first == "\u{FEFF}" ? Substring(content.unicodeScalars.dropFirst()) : content[...]
        let firstLine = text.prefix(while: { $0 != "\n" && $0 != "\r\n" }).prefix(4 * maximumTitleLength)
        let title = firstLine.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
        guard !title.isEmpty else { return fallback }
        guard title.count > maximumTitleLength else { return title }
        return title.prefix(maximumTitleLength - 1).trimmingCharacters(in: .whitespaces) + "…"
    }

    /// `bytes` as note text if they are valid UTF-8, keeping every byte: a note reads back as exactly the bytes
    /// on disk. Not Foundation's `String(data:encoding: .utf8)`, which drops a leading byte-order mark, so a
    /// note saved again, or its hash, would differ from the file (the note-file fuzz target found it).
    public static func text(utf8 bytes: Data) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
}
