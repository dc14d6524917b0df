/// Writes a bash completion script for a command tree.
///
/// The script walks the words typed so far to find the subcommand, then offers that command's subcommands,
/// options, or the values of the option or argument being completed (fixed choices, file names, or the lines
/// a shell command prints). It needs bash 4 and nothing else.
public struct BashCompletionGenerator: Sendable {
    /// Creates a generator.
    public init() {}

    /// The script; `source` it or install it as `bash-completion/completions/<name>`.
    public func script(for root: Command) -> String {
        let fn = "_" + ShellQuoting.identifier(root.name)
        let commands = root.allCommands()
        var s = """
            # bash completion for \(root.name). Generated from its command description; do not edit.
            # Install: \(root.name) completions bash > ~/.local/share/bash-completion/completions/\(root.name)

            \(fn)_is_subcommand() {
                case "$1 $2" in

            """
        for (path, command) in commands {
            for sub in command.subcommands {
                s += "        \(ShellQuoting.double((path + [sub.name]).joined(separator: " ")))) return 0 ;;\n"
            }
        }
        s += """
                esac
                return 1
            }

            \(fn)_takes_value() {
                case "$1 $2" in

            """
        for (path, command) in commands {
            for parameter in command.namedParameters where parameter.kind == .option {
                for spelling in spellings(parameter) {
                    s += "        \(ShellQuoting.double(path.joined(separator: " ") + " " + spelling))) return 0 ;;\n"
                }
            }
        }
        s += """
                esac
                return 1
            }

            \(fn)_value() {
                case "$1 $2" in

            """
        for (path, command) in commands {
            for parameter in command.namedParameters where parameter.kind == .option {
                let patterns = spellings(parameter).map { ShellQuoting.double(path.joined(separator: " ") + " " + $0) }
                s += "        \(patterns.joined(separator: "|"))) \(reply(parameter.completion)) ;;\n"
            }
        }
        s += """
                esac
            }

            \(fn)_options() {
                case "$1" in

            """
        for (path, command) in commands {
            var words = command.namedParameters.flatMap { spellings($0) } + ["-h", "--help"]
            if path.count == 1, command.version != nil { words.append("--version") }
            let pattern = ShellQuoting.double(path.joined(separator: " "))
            s += "        \(pattern)) echo \(ShellQuoting.single(words.joined(separator: " "))) ;;\n"
        }
        s += """
                esac
            }

            \(fn)_positional() {
                case "$1" in

            """
        for (path, command) in commands {
            s += "        \(ShellQuoting.double(path.joined(separator: " "))))\n"
            if !command.subcommands.isEmpty {
                let names = command.subcommands.map(\.name).joined(separator: " ")
                s += "            COMPREPLY=($(compgen -W \(ShellQuoting.single(names)) -- \"$cur\")) ;;\n"
                continue
            }
            s += "            case \"$2\" in\n"
            for (index, argument) in command.arguments.enumerated() {
                let pattern = argument.isRepeating ? "*" : String(index)
                s += "                \(pattern)) \(reply(argument.completion)) ;;\n"
            }
            s += "            esac ;;\n"
        }
        s += """
                esac
            }

            \(fn)() {
                local cur prev word path=\(ShellQuoting.single(root.name)) positional=0 skip=0 i
                COMPREPLY=()
                cur="${COMP_WORDS[COMP_CWORD]}"
                prev=""
                if ((COMP_CWORD > 0)); then prev="${COMP_WORDS[COMP_CWORD-1]}"; fi
                for ((i = 1; i < COMP_CWORD; i++)); do
                    word="${COMP_WORDS[i]}"
                    if ((skip)); then skip=0; continue; fi
                    case "$word" in
                        --*=*) continue ;;
                        -?*) \(fn)_takes_value "$path" "$word" && skip=1; continue ;;
                    esac
                    if ((positional == 0)) && \(fn)_is_subcommand "$path" "$word"; then
                        path="$path $word"
                    else
                        positional=$((positional + 1))
                    fi
                done
                if ((skip)); then \(fn)_value "$path" "$prev"; return 0; fi
                if [[ "$cur" == -* ]]; then
                    COMPREPLY=($(compgen -W "$(\(fn)_options "$path")" -- "$cur"))
                    return 0
                fi
                \(fn)_positional "$path" "$positional"
                return 0
            }

            complete -F \(fn) \(root.name)

            """
        return s
    }

    /// `-g` and `--grace`, as typed.
    private func spellings(_ parameter: Parameter) -> [String] {
        var words: [String] = []
        if let short = parameter.shortName { words.append("-" + String(short)) }
        if let long = parameter.longName { words.append("--" + long) }
        return words
    }

    /// The statement that fills COMPREPLY for a kind of value.
    private func reply(_ completion: CompletionKind) -> String {
        switch completion {
        case .none:
            return ":"
        case .choices(let words):
            return "COMPREPLY=($(compgen -W \(ShellQuoting.single(words.joined(separator: " "))) -- \"$cur\"))"
        case .file:
            return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))"
        case .shellCommand(let command):
            return "local IFS=$'\\n'; COMPREPLY=($(compgen -W \"$(\(command) 2>/dev/null)\" -- \"$cur\"))"
        }
    }
}
