import HandoffCommandLine

/// One `handoff` subcommand: its description and what it does.
protocol HandoffCommand {
    /// The description the parser, help, completions and manual page are generated from.
    static var spec: Command { get }

    /// Runs the command with parsed values and returns the exit status.
    static func run(_ invocation: Invocation, context: CommandContext) async throws -> ExitCode
}
