/// A command line shown in the EXAMPLES section of help and of the manual page.
public struct Example: Sendable {
    /// The full command line, as typed (`handoff note edit groceries`).
    public var commandLine: String
    /// What it does.
    public var explanation: String

    /// Creates an example.
    public init(_ commandLine: String, _ explanation: String) {
        self.commandLine = commandLine
        self.explanation = explanation
    }
}
