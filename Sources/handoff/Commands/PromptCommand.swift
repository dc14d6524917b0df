import HandoffCommandLine

/// `handoff prompt`: a marker for PS1 while an activity is available.
enum PromptCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let marker = Option<String>(
            "marker", valueName: "text", help: "The text printed while something is available.", defaultValue: "⇄")
    }

    static let configuration = CommandConfiguration(
        name: "prompt",
        abstract: "Print a short marker for your shell prompt while an activity is available (daemon).",
        discussion: """
            Prints the marker and a space when at least one activity is available, and nothing otherwise. It \
            prints no error messages, so it is safe in PS1; when the daemon is not reachable it prints nothing \
            and exits 69. Example for bash: PS1='$(handoff prompt)'"$PS1".
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        do {
            let available = try await context.service().availableActivities()
            if !available.isEmpty { context.terminal.out((invocation[\.marker] ?? "⇄") + " ") }
            return .success
        } catch {
            return Handoff.describe(error).0
        }
    }
}
