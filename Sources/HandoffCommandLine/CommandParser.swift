/// Parses command-line words against a ``Command`` description.
///
/// Accepted syntax: `--name value`, `--name=value`, `-n value`, `-nvalue`, clusters of short flags (`-jp`),
/// `--` to end options, and `-h`/`--help` (and `--version` on the root) anywhere before `--`.
/// Negative numbers (`-5`) are values, not options. `help [COMMAND...]` as the first word asks for help on that
/// command, unless the root has a subcommand named `help`.
public struct CommandParser: Sendable {
    /// The root command.
    public let root: Command

    /// Creates a parser for a root command.
    public init(root: Command) {
        self.root = root
    }

    /// Parses the words after the program name (`CommandLine.arguments.dropFirst()`).
    /// - Throws: ``UsageError`` describing the first problem found.
    public func parse(_ words: some Sequence<String>) throws(UsageError) -> ParseOutcome {
        var state = State(command: root, path: [root.name])
        var words = Array(words)[...]
        if words.first == "help", root.subcommand(named: "help") == nil, !root.subcommands.isEmpty {
            return try help(for: Array(words.dropFirst()))
        }
        while let word = words.popFirst() {
            if state.optionsEnded {
                try state.takePositional(word)
            } else if word == "--" {
                state.optionsEnded = true
            } else if word == "--help" || word == "-h" {
                return .help(path: state.path, command: state.command)
            } else if word == "--version", state.path.count == 1, let version = root.version {
                return .version(version)
            } else if word.hasPrefix("--") {
                try state.takeLong(word, rest: &words)
            } else if word.hasPrefix("-"), word.count > 1, Double(word) == nil {
                try state.takeShortCluster(word, rest: &words)
            } else {
                try state.takePositional(word)
            }
        }
        return .run(try state.finish())
    }

    /// The outcome of `help COMMAND...`: help for that command, or an error naming the unknown word.
    private func help(for names: [String]) throws(UsageError) -> ParseOutcome {
        var command = root
        var path = [root.name]
        for name in names {
            guard let next = command.subcommand(named: name) else {
                var message = "unknown command '\(name)' for '\(path.joined(separator: " "))'"
                if let guess = Suggestion.closest(to: name, among: command.subcommands.map(\.name)) {
                    message += "; did you mean '\(guess)'?"
                }
                throw UsageError(.unknownSubcommand, message, commandPath: path)
            }
            command = next
            path.append(name)
        }
        return .help(path: path, command: command)
    }
}

extension CommandParser {
    /// The parser's progress through one command line.
    private struct State {
        var command: Command
        var path: [String]
        var values: [String: [String]] = [:]
        var positionals: [String] = []
        var optionsEnded = false

        init(command: Command, path: [String]) {
            self.command = command
            self.path = path
        }

        func error(_ code: UsageError.Code, _ message: String) -> UsageError {
            UsageError(code, message, commandPath: path)
        }

        /// A group with a default subcommand, given an option or nothing more, runs that subcommand.
        mutating func descendToDefault() {
            guard !command.subcommands.isEmpty, positionals.isEmpty, let name = command.defaultSubcommand,
                  let next = command.subcommand(named: name) else { return }
            command = next
            path.append(next.name)
        }

        mutating func takeLong(_ word: String, rest: inout ArraySlice<String>) throws(UsageError) {
            descendToDefault()
            let body = word.dropFirst(2)
            let name: String
            var attached: String?
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                attached = String(body[body.index(after: equals)...])
            } else {
                name = String(body)
            }
            guard let parameter = command.namedParameters.first(where: { $0.longName == name }) else {
                var message = "unknown option '--\(name)'"
                let known = command.namedParameters.compactMap { $0.longName.map { "--" + $0 } } + ["--help"]
                if let guess = Suggestion.closest(to: "--" + name, among: known) {
                    message += "; did you mean '\(guess)'?"
                }
                throw error(.unknownOption, message)
            }
            if parameter.kind == .flag {
                if attached != nil {
                    throw error(.unexpectedValue, "flag '--\(name)' does not take a value")
                }
                values[parameter.key, default: []].append("")
                return
            }
            let value: String
            if let attached {
                value = attached
            } else {
                value = try takeValue(for: parameter, from: &rest)
            }
            try store(value, for: parameter)
        }

        mutating func takeShortCluster(_ word: String, rest: inout ArraySlice<String>) throws(UsageError) {
            descendToDefault()
            var letters = word.dropFirst()[...]
            while let letter = letters.popFirst() {
                guard let parameter = command.namedParameters.first(where: { $0.shortName == letter }) else {
                    throw error(.unknownOption, "unknown option '-\(letter)'")
                }
                if parameter.kind == .flag {
                    values[parameter.key, default: []].append("")
                    continue
                }
                var value = String(letters)
                if letters.isEmpty {
                    value = try takeValue(for: parameter, from: &rest)
                }
                try store(value, for: parameter)
                return
            }
        }

        func takeValue(for parameter: Parameter, from rest: inout ArraySlice<String>) throws(UsageError) -> String {
            guard let next = rest.first, !(next.hasPrefix("-") && next.count > 1 && Double(next) == nil) else {
                let placeholder = "<" + (parameter.valueName ?? "value") + ">"
                throw error(.missingValue, "option '\(parameter.displayName)' needs a value \(placeholder)")
            }
            rest.removeFirst()
            return next
        }

        mutating func store(_ value: String, for parameter: Parameter) throws(UsageError) {
            guard parameter.accepts(value) else {
                throw error(
                    .invalidValue,
                    "invalid value '\(value)' for '\(parameter.displayName)': expected \(parameter.valueDescription)")
            }
            values[parameter.key, default: []].append(value)
        }

        mutating func takePositional(_ word: String) throws(UsageError) {
            if !command.subcommands.isEmpty, positionals.isEmpty, !optionsEnded {
                guard let next = command.subcommand(named: word) else {
                    let names = command.subcommands.map(\.name)
                    var message = "unknown command '\(word)' for '\(path.joined(separator: " "))'"
                    if let guess = Suggestion.closest(to: word, among: names) {
                        message += "; did you mean '\(guess)'?"
                    } else {
                        message += "; commands are: " + names.joined(separator: ", ")
                    }
                    throw error(.unknownSubcommand, message)
                }
                command = next
                path.append(next.name)
                return
            }
            positionals.append(word)
        }

        mutating func finish() throws(UsageError) -> Invocation {
            descendToDefault()
            if !command.subcommands.isEmpty {
                let names = command.subcommands.map(\.name).joined(separator: ", ")
                throw error(.missingSubcommand, "'\(path.joined(separator: " "))' needs a command: \(names)")
            }
            var values = values
            let arguments = command.arguments
            if positionals.count > arguments.count, arguments.last?.isRepeating != true {
                let extra = positionals[arguments.count]
                throw error(.unexpectedArgument, "unexpected argument '\(extra)'")
            }
            for (index, argument) in arguments.enumerated() {
                let given = argument.isRepeating ? Array(positionals.dropFirst(index)) :
                    (index < positionals.count ? [positionals[index]] : [])
                if given.isEmpty {
                    if !argument.isOptional {
                        throw error(.missingArgument, "missing argument \(argument.usageName)")
                    }
                    continue
                }
                for value in given where !argument.accepts(value) {
                    throw error(
                        .invalidValue,
                        "invalid value '\(value)' for \(argument.displayName): expected \(argument.valueDescription)")
                }
                values[argument.key] = given
            }
            return Invocation(path: path, command: command, values: values)
        }
    }
}
