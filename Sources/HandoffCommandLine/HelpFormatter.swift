/// Renders `--help` text from a ``Command`` description.
///
/// Sections, in order: OVERVIEW (the abstract, then the discussion), USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS,
/// the command's extra sections (EXIT STATUS, ENVIRONMENT, FILES, …), EXAMPLES.
public struct HelpFormatter: Sendable {
    /// The line width text is wrapped to.
    public var width: Int

    /// Creates a formatter wrapping to `width` columns (80 by default).
    public init(width: Int = 80) {
        self.width = width
    }

    /// The one-line synopsis: `handoff note edit [<name>] [--stdin] [--grace <seconds>]`.
    public func usage(for command: Command, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        for parameter in command.namedParameters {
            parts.append("[" + parameter.usageName + "]" + (parameter.isRepeating ? " ..." : ""))
        }
        for argument in command.arguments {
            parts.append(argument.isOptional ? "[" + argument.usageName + "]" : argument.usageName)
        }
        if !command.subcommands.isEmpty { parts.append("<command>") }
        return parts.joined(separator: " ")
    }

    /// The complete help text, ending in a newline.
    public func help(for command: Command, path: [String]) -> String {
        var out: [String] = []
        out.append(contentsOf: TextWrapping.wrap("OVERVIEW: " + command.abstract, width: width))
        for paragraph in TextWrapping.paragraphs(command.discussion) {
            out.append("")
            out.append(contentsOf: TextWrapping.wrap(paragraph, width: width))
        }
        out.append("")
        // A hanging indent under the command name keeps a wrapped synopsis readable.
        var synopsis = TextWrapping.wrap(usage(for: command, path: path), width: width, indent: 7)
        if !synopsis.isEmpty { synopsis[0] = "USAGE: " + synopsis[0].dropFirst(7) }
        out.append(contentsOf: synopsis)
        if !command.arguments.isEmpty {
            out.append("")
            out.append("ARGUMENTS:")
            for argument in command.arguments {
                out.append(contentsOf: entry(argument.usageName, text: describe(argument)))
            }
        }
        out.append("")
        out.append("OPTIONS:")
        for parameter in command.namedParameters {
            out.append(contentsOf: entry(optionTerm(parameter), text: describe(parameter)))
        }
        if path.count == 1, command.version != nil {
            out.append(contentsOf: entry("--version", text: "Show the version."))
        }
        out.append(contentsOf: entry("-h, --help", text: "Show help information."))
        if !command.subcommands.isEmpty {
            out.append("")
            out.append("SUBCOMMANDS:")
            for subcommand in command.subcommands {
                out.append(contentsOf: entry(subcommand.name, text: subcommand.abstract))
            }
            out.append("")
            out.append(contentsOf: TextWrapping.wrap(
                "See '\(path.joined(separator: " ")) <command> --help' for detailed help.", width: width, indent: 2))
        }
        for section in command.sections {
            out.append("")
            out.append(section.title + ":")
            for paragraph in section.paragraphs {
                out.append(contentsOf: TextWrapping.wrap(paragraph, width: width, indent: 2))
            }
            for item in section.entries {
                out.append(contentsOf: entry(item.term, text: item.text))
            }
        }
        if !command.examples.isEmpty {
            out.append("")
            out.append("EXAMPLES:")
            for example in command.examples {
                out.append("  $ " + example.commandLine)
                out.append(contentsOf: TextWrapping.wrap(example.explanation, width: width, indent: 6))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// `-g, --grace <seconds>` or `--json`.
    func optionTerm(_ parameter: Parameter) -> String {
        var names: [String] = []
        if let short = parameter.shortName { names.append("-" + String(short)) }
        if let long = parameter.longName { names.append("--" + long) }
        var term = names.joined(separator: ", ")
        if parameter.kind == .option { term += " <" + (parameter.valueName ?? "value") + ">" }
        return term
    }

    /// The help text with the default and the accepted values appended.
    func describe(_ parameter: Parameter) -> String {
        var text = parameter.help
        if case .choices(let choices) = parameter.completion, parameter.kind != .flag {
            text += " (values: " + choices.joined(separator: ", ") + ")"
        }
        if let value = parameter.defaultDescription {
            text += " (default: " + value + ")"
        }
        return text
    }

    /// A two-column entry: the term in a 24-column gutter, the text wrapped beside it or below it when long.
    func entry(_ term: String, text: String) -> [String] {
        let gutter = 26
        let wrapped = TextWrapping.wrap(text, width: width, indent: gutter)
        let head = "  " + term
        guard let first = wrapped.first else { return [head] }
        if head.count + 2 <= gutter {
            let padded = head + String(repeating: " ", count: gutter - head.count)
            return [padded + first.dropFirst(gutter)] + wrapped.dropFirst()
        }
        return [head] + wrapped
    }
}
