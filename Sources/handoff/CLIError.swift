import HandoffCommandLine

/// A failure a command reports to the user: a message and the exit status to leave with.
struct CLIError: Error, Sendable {
    /// The exit status.
    let exitCode: ExitCode
    /// One line for the user, printed after "handoff: error: ".
    let message: String

    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }
}
