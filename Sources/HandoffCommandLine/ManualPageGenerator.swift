import Foundation

/// Writes a manual page (troff with the `man` macros, section 1) for a command tree.
///
/// One page covers the whole tree: NAME, SYNOPSIS, DESCRIPTION and OPTIONS for the root, a COMMANDS section
/// with a subsection per subcommand (synopsis, description, options), then the root's extra sections
/// (EXIT STATUS, ENVIRONMENT, FILES, …) and EXAMPLES. View it with `man -l <file>`.
public struct ManualPageGenerator: Sendable {
    /// The date printed in the page footer (for example "2026-11-29"); empty to leave it out.
    public var date: String

    /// Creates a generator.
    public init(date: String = "") {
        self.date = date
    }

    /// The page source.
    public func page(for root: Command) -> String {
        let help = HelpFormatter()
        var out: [String] = []
        let title = root.name.uppercased()
        out.append(".TH \(quoted(title)) \"1\" \(quoted(date)) \(quoted(root.name + " " + (root.version ?? ""))) "
            + "\"User Commands\"")
        out.append(".SH NAME")
        out.append(escape(root.name) + " \\- " + escape(root.abstract))
        out.append(".SH SYNOPSIS")
        for (path, command) in root.allCommands() where command.subcommands.isEmpty || path.count == 1 {
            out.append(".PP")
            out.append(synopsis(help.usage(for: command, path: path)))
        }
        out.append(".SH DESCRIPTION")
        out.append(contentsOf: paragraphs(root.discussion.isEmpty ? root.abstract : root.discussion))
        out.append(".SH OPTIONS")
        out.append(contentsOf: options(root, isRoot: true))
        let descendants = root.allCommands().dropFirst()
        if !descendants.isEmpty {
            out.append(".SH COMMANDS")
            for (path, command) in descendants {
                out.append(".SS " + quoted(path.joined(separator: " ")))
                out.append(synopsis(help.usage(for: command, path: path)))
                out.append(contentsOf: paragraphs(command.abstract))
                out.append(contentsOf: paragraphs(command.discussion))
                if command.namedParameters.isEmpty && command.arguments.isEmpty { continue }
                out.append(".PP")
                out.append("Options:")
                out.append(".RS")
                out.append(contentsOf: options(command, isRoot: false))
                out.append(".RE")
            }
        }
        for section in root.sections {
            out.append(".SH " + escape(section.title))
            for paragraph in section.paragraphs {
                out.append(".PP")
                out.append(escape(paragraph))
            }
            for entry in section.entries {
                out.append(".TP")
                out.append("\\fB" + escape(entry.term) + "\\fR")
                out.append(escape(entry.text))
            }
        }
        let examples = root.allCommands().flatMap(\.command.examples)
        if !examples.isEmpty {
            out.append(".SH EXAMPLES")
            for example in examples {
                out.append(".TP")
                out.append("\\fB" + escape(example.commandLine) + "\\fR")
                out.append(escape(example.explanation))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    private func options(_ command: Command, isRoot: Bool) -> [String] {
        var out: [String] = []
        let formatter = HelpFormatter()
        for parameter in command.arguments + command.namedParameters {
            out.append(".TP")
            if parameter.kind == .argument {
                out.append("\\fI" + escape(parameter.valueName ?? parameter.key) + "\\fR")
            } else {
                var term = formatter.optionTerm(parameter)
                if parameter.kind == .option, let valueName = parameter.valueName {
                    term = String(term.dropLast(valueName.count + 3))
                    out.append("\\fB" + escape(term) + "\\fR \\fI" + escape(valueName) + "\\fR")
                } else {
                    out.append("\\fB" + escape(term) + "\\fR")
                }
            }
            out.append(escape(formatter.describe(parameter)))
        }
        if isRoot, command.version != nil {
            out.append(contentsOf: [".TP", "\\fB\\-\\-version\\fR", "Show the version."])
        }
        out.append(contentsOf: [".TP", "\\fB\\-h\\fR, \\fB\\-\\-help\\fR", "Show help information."])
        return out
    }

    private func synopsis(_ usage: String) -> String {
        "\\fB" + escape(usage) + "\\fR"
    }

    private func paragraphs(_ text: String) -> [String] {
        TextWrapping.paragraphs(text).flatMap { [".PP", escape($0.replacingOccurrences(of: "\n", with: " "))] }
    }

    private func quoted(_ text: String) -> String {
        "\"" + escape(text).replacingOccurrences(of: "\"", with: "\\(dq") + "\""
    }

    /// Escapes text for troff: backslashes, hyphens (as `\-`), and a leading `.` or `'` that would start a request.
    func escape(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
