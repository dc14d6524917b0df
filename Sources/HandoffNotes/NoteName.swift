/// A validated note name: the file name of a note without its `.md` extension.
///
/// Valid names are 1 to 200 UTF-8 bytes, contain no `/`, NUL or control characters, do not start with `.`
/// (hidden files hold the store's own state) and have no leading or trailing spaces. So a name can never point
/// outside the notes directory. A trailing `.md` given by the user is dropped: `groceries.md` is `groceries`.
public struct NoteName: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The longest name, in UTF-8 bytes, leaving room for `.md` and a conflict-copy suffix within NAME_MAX.
    public static let maximumLength = 200

    /// The name.
    public let rawValue: String

    /// Validates a name.
    /// - Throws: ``NoteError`` with code ``NoteError/Code/invalidName`` and a message saying what is wrong.
    public init(_ text: String) throws(NoteError) {
        var name = text
        if name.hasSuffix(".md"), name.count > 3 { name.removeLast(3) }
        func refuse(_ why: String) -> NoteError {
            NoteError(.invalidName, "invalid note name '\(text)': \(why)")
        }
        if name.isEmpty { throw refuse("it is empty") }
        if name.utf8.count > Self.maximumLength { throw refuse("longer than \(Self.maximumLength) bytes") }
        if name.hasPrefix(".") { throw refuse("it must not start with '.'") }
        if name.contains("/") { throw refuse("it must not contain '/'") }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse("it must not contain control characters")
        }
        if name.first == " " || name.last == " " { throw refuse("it must not start or end with a space") }
        rawValue = name
    }

    /// The file name in the store: the name plus `.md`.
    public var fileName: String { rawValue + ".md" }

    /// The name.
    public var description: String { rawValue }

    /// Orders names by their text.
    public static func < (lhs: NoteName, rhs: NoteName) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Decodes and validates a name.
    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the name as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
