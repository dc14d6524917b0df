/// An extra section of help and of the manual page, such as EXIT STATUS, ENVIRONMENT or FILES.
public struct HelpSection: Sendable {
    /// One term and its explanation (`64` and "The command line was wrong.").
    public struct Entry: Sendable {
        /// The left column: a code, a variable, a path.
        public var term: String
        /// The explanation, in sentences.
        public var text: String

        /// Creates an entry.
        public init(_ term: String, _ text: String) {
            self.term = term
            self.text = text
        }
    }

    /// The heading, in capitals by convention (`EXIT STATUS`).
    public var title: String
    /// Paragraphs printed before the entries.
    public var paragraphs: [String]
    /// Term and explanation pairs.
    public var entries: [Entry]

    /// Creates a section.
    public init(_ title: String, paragraphs: [String] = [], entries: [Entry] = []) {
        self.title = title
        self.paragraphs = paragraphs
        self.entries = entries
    }
}
