/// What a command says about itself besides its parameters and subcommands.
public struct CommandConfiguration: Sendable {
    /// The word that selects the command; for the root, the program name.
    public var name: String
    /// One sentence: what the command does.
    public var abstract: String
    /// Longer explanation, in paragraphs separated by blank lines.
    public var discussion: String
    /// Extra help sections (EXIT STATUS, ENVIRONMENT, FILES, …).
    public var sections: [HelpSection]
    /// Example command lines.
    public var examples: [Example]
    /// The version printed by `--version`; only read on the root command.
    public var version: String?

    /// Describes a command; see ``Command`` for what each part is used for.
    public init(
        name: String,
        abstract: String,
        discussion: String = "",
        sections: [HelpSection] = [],
        examples: [Example] = [],
        version: String? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.sections = sections
        self.examples = examples
        self.version = version
    }
}

/// One node of a program's command tree, declared as a type: a ``CommandGroup`` of subcommands or a
/// ``RunnableCommand`` that runs.
///
/// The tree of types is the one declaration of the program's commands: ``command`` (what the parser, help,
/// completions and the manual page read) and ``runner(for:)`` (what runs a parsed command line) both follow from
/// it, so a command cannot be described without being run, or run without being described. `Context` is what
/// the program hands every command (its terminal, environment, …).
public protocol CommandNode<Context> {
    /// What every command of the program runs with.
    associatedtype Context

    /// The command's name and documentation.
    static var configuration: CommandConfiguration { get }

    /// The description of this node and everything below it.
    static var command: Command { get }

    /// What runs the command at `path` (subcommand names below this node), or nil when there is none.
    static func runner(for path: ArraySlice<String>) -> ((Invocation, Context) async throws -> ExitCode)?
}

extension CommandNode {
    /// What runs the command a parse selected (its path starts with this node's name), or nil when this tree has
    /// no such command.
    public static func runner(for invocation: Invocation) -> ((Invocation, Context) async throws -> ExitCode)? {
        guard invocation.path.first == configuration.name else { return nil }
        return runner(for: invocation.path.dropFirst())
    }
}

/// A command that only groups subcommands (`handoff note`); one of them is needed on the command line.
public protocol CommandGroup<Context>: CommandNode {
    /// The subcommands, in the order help lists them.
    static var subcommands: [any CommandNode<Context>.Type] { get }
    /// The subcommand that runs when none is given (its options may then follow the group's name directly); nil
    /// (the default): one is required.
    static var defaultSubcommand: (any CommandNode<Context>.Type)? { get }
}

extension CommandGroup {
    /// None: a subcommand is required.
    public static var defaultSubcommand: (any CommandNode<Context>.Type)? { nil }

    /// The group with its subcommands.
    public static var command: Command {
        let about = configuration
        var command = Command(
            name: about.name, abstract: about.abstract, discussion: about.discussion,
            subcommands: subcommands.map { $0.command }, sections: about.sections, examples: about.examples,
            version: about.version)
        command.defaultSubcommand = defaultSubcommand?.configuration.name
        return command
    }

    /// The runner of the subcommand named first in `path`.
    public static func runner(for path: ArraySlice<String>) -> ((Invocation, Context) async throws -> ExitCode)? {
        guard let name = path.first, let next = subcommands.first(where: { $0.configuration.name == name }) else {
            return nil
        }
        return next.runner(for: path.dropFirst())
    }
}

/// A command that runs (`handoff note edit`): its parameters and its `run`, in one type.
public protocol RunnableCommand<Context>: CommandNode {
    /// The command's options, flags and positional arguments.
    associatedtype Parameters: ParameterSet = NoParameters

    /// Runs the command with its parsed values and returns the exit status.
    static func run(_ invocation: Parsed<Parameters>, context: Context) async throws -> ExitCode
}

extension RunnableCommand {
    /// The command with its parameters.
    public static var command: Command {
        let about = configuration
        return Command(
            name: about.name, abstract: about.abstract, discussion: about.discussion,
            parameters: Parameters.parameters, sections: about.sections, examples: about.examples,
            version: about.version)
    }

    /// Runs this command when `path` is empty (it has no subcommands).
    public static func runner(for path: ArraySlice<String>) -> ((Invocation, Context) async throws -> ExitCode)? {
        guard path.isEmpty else { return nil }
        return { invocation, context in try await run(Parsed(invocation), context: context) }
    }
}
