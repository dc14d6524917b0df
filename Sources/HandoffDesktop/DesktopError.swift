/// A failure of the desktop integration, with one line for the user.
public struct DesktopError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, so the CLI can choose an exit status.
    public enum Code: Sendable, Equatable {
        /// No desktop clipboard is reachable (no display, or its tools are not installed).
        case noClipboard
        /// The clipboard holds nothing handoff can carry (empty, or only other media types).
        case nothingToCopy
        /// A desktop program failed or could not be started.
        case toolFailed
        /// Content from another device was refused (a scheme that is never opened, a hostile name).
        case refused
    }

    /// What went wrong.
    public let code: Code
    /// One line for the user.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
