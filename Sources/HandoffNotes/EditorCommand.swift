/// The editor to open notes with: `$VISUAL`, else `$EDITOR`, else `vi`.
///
/// The value is a shell command line, so `EDITOR="code --wait"` works; the note's path is passed as its last
/// argument (`/bin/sh -c '<editor> "$@"' sh <path>`), never spliced into the command text.
public struct EditorCommand: Sendable, Equatable {
    /// The shell command line.
    public var commandLine: String

    /// Uses a given command line.
    public init(commandLine: String) {
        self.commandLine = commandLine
    }

    /// Chooses from the environment: a non-blank `VISUAL`, else a non-blank `EDITOR`, else `vi`.
    public init(environment: [String: String]) {
        let candidates = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }
        commandLine = candidates.first { !$0.allSatisfy(\.isWhitespace) } ?? "vi"
    }

    /// The program and arguments to run for a file.
    var invocation: (executable: String, arguments: [String]) {
        ("/bin/sh", ["-c", commandLine + " \"$@\"", "sh"])
    }
}
