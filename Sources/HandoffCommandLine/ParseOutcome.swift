/// What a successfully parsed command line asks for.
public enum ParseOutcome: Sendable {
    /// Run a command with these values.
    case run(Invocation)
    /// Print help for the command at this path (`--help` or `-h` was given); the path starts at the root.
    case help(path: [String], command: Command)
    /// Print the root command's version (`--version` was given).
    case version(String)
}
