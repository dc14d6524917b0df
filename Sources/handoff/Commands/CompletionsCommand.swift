import HandoffCommandLine

/// `handoff completions SHELL`: a completion script.
enum CompletionsCommand: HandoffCommand {
    /// The shells a script can be generated for.
    enum Shell: String, CaseIterable, ArgumentValue {
        case bash, zsh
    }

    struct Parameters: ParameterSet {
        let shell = Argument<Shell>("shell", help: "The shell to write a completion script for.")
    }

    static let configuration = CommandConfiguration(
        name: "completions",
        abstract: "Print a completion script for bash or zsh.",
        discussion: """
            For bash: handoff completions bash > ~/.local/share/bash-completion/completions/handoff. For zsh: \
            handoff completions zsh > ~/.zfunc/_handoff with ~/.zfunc in $fpath before compinit, or \
            source <(handoff completions zsh) after compinit.
            """)

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        switch invocation[\.shell] ?? .bash {
        case .bash: context.terminal.out(BashCompletionGenerator().script(for: RootCommand.spec))
        case .zsh: context.terminal.out(ZshCompletionGenerator().script(for: RootCommand.spec))
        }
        return .success
    }
}
