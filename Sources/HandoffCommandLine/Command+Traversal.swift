extension Command {
    /// This command and every descendant, depth first, each with its path from this command (inclusive).
    public func allCommands(prefix: [String] = []) -> [(path: [String], command: Command)] {
        let path = prefix + [name]
        return [(path, self)] + subcommands.flatMap { $0.allCommands(prefix: path) }
    }
}
