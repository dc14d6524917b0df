import Foundation
import HandoffCommandLine
import HandoffDesktop

/// `handoff shell-init bash|zsh`: the prompt hook that offers the shell's place.
enum ShellInitCommand: HandoffCommand {
    struct Parameters: ParameterSet {
        let shell = Argument<ShellHook.Shell>("shell", help: "The shell to print the hook for.")
    }

    static let configuration = CommandConfiguration(
        name: "shell-init",
        abstract: "Print the prompt hook that offers your shell's place to your nearby devices, for eval.",
        discussion: """
            Add eval "$(handoff shell-init bash)" to ~/.bashrc, or eval "$(handoff shell-init zsh)" to ~/.zshrc. \
            When the working directory or the last command changes, the hook offers an org.handoff.terminal \
            activity in the background: the directory, the git remote URL, branch and path inside the \
            repository, and the last command line. Nothing else is sent: environment variables only when named \
            in HANDOFF_TERMINAL_ENV. When nothing changed the hook starts no program, so the prompt does not \
            wait. It also defines a 'handoff' shell function, so that 'handoff continue' can change this \
            shell's directory and put the other machine's last command in its history (never run).
            """,
        examples: [Example("eval \"$(handoff shell-init bash)\"", "In ~/.bashrc.")])

    static func run(_ invocation: Parsed<Parameters>, context: CommandContext) async throws -> ExitCode {
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "handoff"
        context.terminal.out(ShellHook.script(for: invocation[\.shell] ?? .bash, program: program))
        return .success
    }
}

extension ShellHook.Shell: ArgumentValue {}
