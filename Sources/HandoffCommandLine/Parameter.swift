/// One option, flag or positional argument of a command, with its type erased.
///
/// Commands are described with the typed ``Option``, ``Flag`` and ``Argument`` values; each turns into a
/// `Parameter` so the parser, the help formatter and the completion generators all read the same description.
public struct Parameter: Sendable {
    /// What kind of command-line word a parameter is.
    public enum Kind: Sendable, Hashable {
        /// `--name VALUE`: takes a value.
        case option
        /// `--name`: present or absent.
        case flag
        /// A positional word.
        case argument
    }

    /// Whether this is an option, a flag or a positional argument.
    public var kind: Kind
    /// The key values are stored under: the long name of an option or flag, the value name of an argument.
    public var key: String
    /// The long name without dashes (`json` for `--json`); nil for arguments.
    public var longName: String?
    /// The one-letter short name without the dash (`h` for `-h`), if any.
    public var shortName: Character?
    /// The placeholder for the value in help (`seconds` prints as `<seconds>`); nil for flags.
    public var valueName: String?
    /// One or more sentences shown in help, the manual page and zsh completions.
    public var help: String
    /// The default value as shown in help, if there is one.
    public var defaultDescription: String?
    /// Whether the command can run without this parameter.
    public var isOptional: Bool
    /// Whether an option may be given more than once (all values are kept).
    public var isRepeating: Bool
    /// How shells complete the value.
    public var completion: CompletionKind
    /// What a valid value looks like, for errors ("a number").
    public var valueDescription: String
    /// Returns true when a word is a valid value.
    let accepts: @Sendable (String) -> Bool

    /// The spelling used in messages: `--grace`, `-x` or `<name>`.
    public var displayName: String {
        if let longName { return "--" + longName }
        if let shortName { return "-" + String(shortName) }
        return "<" + (valueName ?? key) + ">"
    }

    /// The spelling used in usage lines: `--grace <seconds>`, `--json` or `<name>`.
    public var usageName: String {
        switch kind {
        case .flag: return displayName
        case .option: return displayName + " <" + (valueName ?? "value") + ">"
        case .argument: return "<" + (valueName ?? key) + ">" + (isRepeating ? " ..." : "")
        }
    }
}
