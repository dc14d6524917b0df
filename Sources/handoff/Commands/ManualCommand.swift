import HandoffCommandLine

/// `handoff manual`: the manual page.
enum ManualCommand: HandoffCommand {
    static let configuration = CommandConfiguration(
        name: "manual",
        abstract: "Print the handoff(1) manual page in troff format.",
        discussion: "View it with: handoff manual | man -l -. Install it as man1/handoff.1.")

    static func run(_ invocation: Parsed<NoParameters>, context: CommandContext) async throws -> ExitCode {
        context.terminal.out(ManualPageGenerator().page(for: RootCommand.spec))
        return .success
    }
}
