import Foundation
import HandoffClient
import HandoffCommandLine
import HandoffDesktop

/// `handoff editor`: what the Neovim plugin (integrations/nvim) calls.
enum EditorGroupCommand: HandoffCommandGroup {
    static let configuration = CommandConfiguration(
        name: "editor",
        abstract: "Offer the file open in your editor, at the cursor (the Neovim plugin runs this).")

    static var subcommands: [any CommandNode<CommandContext>.Type] {
        [EditorOfferCommand.self]
    }
}

/// `handoff editor offer FILE --line L --column C --sha256 HEX [--modified]`.
enum EditorOfferCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let file = Argument<String>("file", help: "The file, as an absolute path or relative to this directory.")
        let line = Option<Int>("line", valueName: "n", help: "The cursor's line, from 1 (default: 1).")
        let column = Option<Int>("column", valueName: "n", help: "The cursor's column, from 1 (default: 1).")
        let sha256 = Option<String>(
            "sha256", valueName: "hex",
            help: "The SHA-256 of the buffer's text, so the other machine can tell whether its copy differs.")
        let modified = Flag("modified", help: "The buffer has changes not written to the file.")
    }

    static let configuration = CommandConfiguration(
        name: "offer",
        abstract: "Offer a file at a line and column: its repository's remote and its path there (daemon).",
        discussion: """
            Asks git for the file's repository (one git rev-parse), then offers org.handoff.editor: the \
            remote, branch, path inside the repository, line, column, the buffer's SHA-256 and whether it has \
            unsaved changes. 'handoff continue' on the other machine opens the same path in its own clone of \
            the same repository, found by the remote (see HANDOFF_CLONES), and says so when its copy differs. \
            A file outside a git repository with a remote is not offered (exit 65).
            """,
        examples: [Example("handoff editor offer Sources/main.swift --line 12 --column 5",
                           "Offer a file at line 12, column 5.")])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let given = invocation[\.file] ?? ""
        let file = given.hasPrefix("/") ? given : FileManager.default.currentDirectoryPath + "/" + given
        let place = try await EditorPlace.current(
            file: file, line: invocation[\.line] ?? 1, column: invocation[\.column] ?? 1,
            sha256: invocation[\.sha256], modified: invocation[\.modified], environment: context.environment)
        _ = try await context.service().setCurrentActivity(place.activity)
        context.terminal.note("offered \(place.title)")
        return .success
    }
}
