/// The result of parsing a command line that names a command to run: which command, and its typed values.
///
/// A program declared as ``CommandGroup`` and ``RunnableCommand`` types hands it to ``CommandNode/runner(for:)``,
/// and each command reads its values through ``Parsed``, which only takes key paths into its own parameters.
public struct Invocation: Sendable {
    /// The names from the root to the selected command (`["handoff", "note", "edit"]`).
    public let path: [String]
    /// The description of the selected command.
    public let command: Command
    /// Raw values by parameter key; every one was accepted by its parameter's type while parsing.
    let values: [String: [String]]

    init(path: [String], command: Command, values: [String: [String]]) {
        self.path = path
        self.command = command
        self.values = values
    }

    /// The subcommand path below the root (`["note", "edit"]`), convenient for dispatch.
    public var subcommandPath: [String] { Array(path.dropFirst()) }

    /// The option's value: the last one given, else its default, else nil.
    public subscript<Value>(_ option: Option<Value>) -> Value? {
        values[option.parameter.key]?.last.flatMap(Value.init(argument:)) ?? option.defaultValue
    }

    /// Every value given for a repeating option, in command-line order (empty when absent).
    public func all<Value>(_ option: Option<Value>) -> [Value] {
        (values[option.parameter.key] ?? []).compactMap(Value.init(argument:))
    }

    /// Whether the flag was given.
    public subscript(_ flag: Flag) -> Bool {
        values[flag.parameter.key] != nil
    }

    /// Whether the option or flag with this long name was given, for what every command shares (`--json`).
    public func isGiven(_ name: String) -> Bool {
        values[name] != nil
    }

    /// Every value given for a repeating positional argument, in command-line order (empty when absent).
    public func all<Value>(_ argument: Argument<Value>) -> [Value] {
        (values[argument.parameter.key] ?? []).compactMap(Value.init(argument:))
    }

    /// The positional argument's value, or nil when an optional argument was left out.
    public subscript<Value>(_ argument: Argument<Value>) -> Value? {
        values[argument.parameter.key]?.last.flatMap(Value.init(argument:))
    }
}
