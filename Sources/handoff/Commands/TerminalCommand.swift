import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff terminal`: what the shell hook calls.
enum TerminalCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "terminal",
        abstract: "Offer a shell's place to your nearby devices (the shell-init hook runs this).")

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [TerminalOfferCommand.self]
    }
}

/// `handoff terminal offer --cwd DIR --command LINE`.
enum TerminalOfferCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let directory = Option<String>(
            "cwd", valueName: "dir", help: "The shell's working directory (default: this process's).")
        let command = Option<String>("command", valueName: "line", help: "The last command line.")
    }

    static let configuration = CommandConfiguration(
        name: "offer",
        abstract: "Offer the terminal's place: directory, git remote, branch, path in the repository, last command (daemon).",
        discussion: """
            Run by the hook of 'handoff shell-init' when the directory or the last command changed. It asks \
            git for the repository, then offers org.handoff.terminal, unless that is exactly what it offered \
            last (kept in $XDG_RUNTIME_DIR/handoff/terminal-offered): then the daemon is not called. \
            Environment variables are sent only when named in HANDOFF_TERMINAL_ENV.
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let cwd = invocation[\.directory] ?? FileManager.default.currentDirectoryPath
        let state = await TerminalState.current(directory: cwd, command: invocation[\.command],
                                                environment: context.environment)
        let activity = state.activity
        let record = ClipboardPause.sessionDirectory(environment: context.environment) + "/terminal-offered"
        let digest = try JSONOutput.line(activity)
        if (try? String(contentsOfFile: record, encoding: .utf8)) == digest { return .success }
        _ = try await context.service().setCurrentActivity(activity)
        try? FileManager.default.createDirectory(atPath: (record as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        try? digest.write(toFile: record, atomically: true, encoding: .utf8)
        context.terminal.note("offered \(state.title)")
        return .success
    }
}
