import Foundation

/// Writes a zsh completion script (`#compdef`) for a command tree.
///
/// Every command becomes one function built on `_arguments`; commands with subcommands use `_describe` for
/// the subcommand names and dispatch to the chosen one. The script works both autoloaded from `$fpath`
/// (as `_<name>`) and sourced directly (it then registers itself with `compdef`).
public struct ZshCompletionGenerator: Sendable {
    /// Creates a generator.
    public init() {}

    /// The script.
    public func script(for root: Command) -> String {
        let base = "_" + ShellQuoting.identifier(root.name)
        var s = """
            #compdef \(root.name)
            # zsh completion for \(root.name). Generated from its command description; do not edit.
            # Install: \(root.name) completions zsh > "${fpath[1]}/_\(root.name)"

            \(base)_lines() {
                local -a lines
                lines=("${(@f)$(eval "$1" 2>/dev/null)}")
                compadd -a lines
            }

            """
        for (path, command) in root.allCommands() {
            s += function(for: command, path: path, base: base)
        }
        s += """
            if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
                \(base) "$@"
            else
                compdef \(base) \(root.name)
            fi

            """
        return s
    }

    private func functionName(_ path: [String]) -> String {
        "_" + path.map(ShellQuoting.identifier).joined(separator: "_")
    }

    private func function(for command: Command, path: [String], base: String) -> String {
        var specs: [String] = []
        for parameter in command.namedParameters {
            specs.append(optionSpec(parameter, base: base))
        }
        if path.count == 1, command.version != nil {
            specs.append("'--version[Show the version.]'")
        }
        specs.append("'(- *)'{-h,--help}'[Show help information.]'")
        var s = "\(functionName(path))() {\n"
        if command.subcommands.isEmpty {
            for argument in command.arguments {
                let optional = argument.isOptional ? ":" : ""
                let name = escape(argument.valueName ?? argument.key)
                let action = self.action(argument.completion, base: base)
                specs.append((argument.isRepeating ? "'*" : "'") + optional + ":" + name + ":" + action + "'")
            }
            s += "    _arguments -s -S \\\n        " + specs.joined(separator: " \\\n        ") + "\n}\n\n"
            return s
        }
        specs.append("'1: :->command'")
        specs.append("'*:: :->argument'")
        s += "    local context state state_descr line\n    local -A opt_args\n"
        s += "    _arguments -C \\\n        " + specs.joined(separator: " \\\n        ") + " && return\n"
        s += "    case $state in\n        command)\n            local -a commands\n            commands=(\n"
        for sub in command.subcommands {
            s += "                " + ShellQuoting.single(sub.name.replacingOccurrences(of: ":", with: "\\:")
                + ":" + firstSentence(sub.abstract)) + "\n"
        }
        s += "            )\n"
        let tag = ShellQuoting.single(path.joined(separator: " ") + " command")
        s += "            _describe -t commands \(tag) commands ;;\n"
        s += "        argument)\n            case $words[1] in\n"
        for sub in command.subcommands {
            s += "                \(ShellQuoting.single(sub.name))) \(functionName(path + [sub.name])) ;;\n"
        }
        s += "            esac ;;\n    esac\n}\n\n"
        return s
    }

    private func optionSpec(_ parameter: Parameter, base: String) -> String {
        let help = "[" + escape(firstSentence(parameter.help)) + "]"
        var value = ""
        if parameter.kind == .option {
            value = ":" + escape(parameter.valueName ?? "value") + ":" + action(parameter.completion, base: base)
        }
        let repeatMark = parameter.isRepeating ? "*" : ""
        guard let long = parameter.longName else {
            return "'" + repeatMark + "-" + String(parameter.shortName ?? "?") + help + value + "'"
        }
        guard let short = parameter.shortName, !parameter.isRepeating else {
            return "'" + repeatMark + "--" + long + help + value + "'"
        }
        return "'(-\(short) --\(long))'{-\(short),--\(long)}'" + help + value + "'"
    }

    /// The `_arguments` action for a kind of value, written to sit inside single quotes.
    private func action(_ completion: CompletionKind, base: String) -> String {
        switch completion {
        case .none:
            return " "
        case .choices(let words):
            return "(" + words.map(escape).joined(separator: " ") + ")"
        case .file:
            return "_files"
        case .shellCommand(let command):
            let quoted = ShellQuoting.double(command)
            return "{\(base)_lines \(quoted.replacingOccurrences(of: "'", with: "'\\''"))}"
        }
    }

    /// The first sentence of a help text, for the one-line descriptions zsh shows.
    private func firstSentence(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        if let end = flat.range(of: ". ") { return String(flat[..<end.lowerBound]) }
        return flat.hasSuffix(".") ? String(flat.dropLast()) : flat
    }

    /// Escapes text for an `_arguments` spec inside single quotes.
    private func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "'": out += "'\\''"
            case "[", "]", ":", "\\": out += "\\" + String(character)
            default: out.append(character)
            }
        }
        return out
    }
}
