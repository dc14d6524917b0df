/// An error from the note store, the editor session or a restore.
public struct NoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case invalidName, notFound, notText, io, editorFailed
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The name is empty, too long, hidden, or contains `/`, NUL or control characters.
        public static let invalidName = Code(.invalidName)
        /// No note has that name.
        public static let notFound = Code(.notFound)
        /// The note's bytes are not UTF-8 text.
        public static let notText = Code(.notText)
        /// Reading, writing or watching the file system failed; ``NoteError/errno`` says why.
        public static let io = Code(.io)
        /// The editor could not be started.
        public static let editorFailed = Code(.editorFailed)

        /// The kind's name, for logs and tests.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// One line for the user.
    public let message: String
    /// The system error number, for ``Code/io``.
    public let errno: Int32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// The message.
    public var description: String { message }
}
