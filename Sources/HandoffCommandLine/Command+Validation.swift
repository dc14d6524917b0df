extension Command {
    /// Mistakes in a command tree that would make parsing ambiguous or help wrong, one sentence each; empty when
    /// the tree is sound. Check it in a test of the program's command tree.
    ///
    /// Found: duplicate long or short names (including the built-in `--help`, `-h` and root `--version`),
    /// duplicate subcommand names, a required argument after an optional or repeating one, arguments on a
    /// command that has subcommands, and a missing abstract.
    public func problems() -> [String] {
        allCommands().flatMap { path, command in command.ownProblems(path.joined(separator: " ")) }
    }

    private func ownProblems(_ where_: String) -> [String] {
        var problems: [String] = []
        if abstract.isEmpty { problems.append("'\(where_)' has no abstract") }
        var longs: Set<String> = ["help"]
        if version != nil { longs.insert("version") }
        var shorts: Set<Character> = ["h"]
        for parameter in namedParameters {
            if let long = parameter.longName, !longs.insert(long).inserted {
                problems.append("'\(where_)' declares --\(long) twice (or reuses a built-in)")
            }
            if let short = parameter.shortName, !shorts.insert(short).inserted {
                problems.append("'\(where_)' declares -\(short) twice (or reuses -h)")
            }
        }
        var names: Set<String> = []
        for subcommand in subcommands where !names.insert(subcommand.name).inserted {
            problems.append("'\(where_)' has two subcommands named '\(subcommand.name)'")
        }
        if !subcommands.isEmpty, !arguments.isEmpty {
            problems.append("'\(where_)' has both subcommands and positional arguments")
        }
        var sawOptional = false
        for argument in arguments {
            if sawOptional, !argument.isOptional {
                problems.append("'\(where_)': required \(argument.usageName) follows an optional or repeating one")
            }
            sawOptional = sawOptional || argument.isOptional || argument.isRepeating
        }
        return problems
    }
}
