/// The complete description of a command: its name, documentation, parameters and subcommands, in one place.
///
/// The parser, `--help`, the bash and zsh completion scripts and the manual page are all generated from this
/// value, so they cannot disagree.
///
/// A program usually builds it from a tree of ``CommandNode`` types (``CommandNode/command``), so the commands
/// that run are the ones described.
public struct Command: Sendable {
    /// The word that selects the command (`edit` in `handoff note edit`); for the root, the program name.
    public var name: String
    /// One sentence: what the command does. Shown in subcommand lists and as OVERVIEW.
    public var abstract: String
    /// Longer explanation, in paragraphs separated by blank lines. Shown in help and the manual page.
    public var discussion: String
    /// Options, flags and positional arguments, in the order help lists them.
    public var parameters: [Parameter]
    /// Nested commands. A command with subcommands needs one of them on the command line.
    public var subcommands: [Command]
    /// Extra help sections (EXIT STATUS, ENVIRONMENT, FILES, …).
    public var sections: [HelpSection]
    /// Example command lines.
    public var examples: [Example]
    /// The version printed by `--version`; only read on the root command.
    public var version: String?
    /// The subcommand that runs when a command with subcommands is given none (`handoff inbox` lists, as
    /// `handoff inbox list` does); its options may then follow the group's name directly. Nil: one is required.
    public var defaultSubcommand: String?

    /// Describes a command.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        parameters: [any ParameterConvertible] = [],
        subcommands: [Command] = [],
        sections: [HelpSection] = [],
        examples: [Example] = [],
        version: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.parameters = parameters.map(\.parameter)
        self.subcommands = subcommands
        self.sections = sections
        self.examples = examples
        self.version = version
    }

    /// The options and flags, in declaration order.
    public var namedParameters: [Parameter] { parameters.filter { $0.kind != .argument } }

    /// The positional arguments, in order.
    public var arguments: [Parameter] { parameters.filter { $0.kind == .argument } }

    /// The subcommand with the given name, if any.
    public func subcommand(named name: String) -> Command? {
        subcommands.first { $0.name == name }
    }

    /// The command reached by following a path of subcommand names from this one.
    public func descendant(_ path: [String]) -> Command? {
        var command = self
        for name in path {
            guard let next = command.subcommand(named: name) else { return nil }
            command = next
        }
        return command
    }
}
