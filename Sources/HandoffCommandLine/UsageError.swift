/// A command line the parser refused, with a message meant for the user.
///
/// Print ``message``, then a hint to run `--help` on ``commandPath``; exit with ``ExitCode/usage``.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, as a category tests and callers can match on.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case unknownOption, missingValue, invalidValue, unexpectedValue
            case missingArgument, unexpectedArgument, unknownSubcommand, missingSubcommand
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// An option or flag the command does not have.
        public static let unknownOption = Code(.unknownOption)
        /// An option was given without its value.
        public static let missingValue = Code(.missingValue)
        /// A value the option's or argument's type does not accept.
        public static let invalidValue = Code(.invalidValue)
        /// A value was attached to a flag (`--json=yes`).
        public static let unexpectedValue = Code(.unexpectedValue)
        /// A required positional argument is missing.
        public static let missingArgument = Code(.missingArgument)
        /// More positional words than the command takes.
        public static let unexpectedArgument = Code(.unexpectedArgument)
        /// A word that is not one of the command's subcommands.
        public static let unknownSubcommand = Code(.unknownSubcommand)
        /// The command needs a subcommand and none was given.
        public static let missingSubcommand = Code(.missingSubcommand)

        /// The category's name, for logs and tests.
        public var description: String { value.rawValue }
    }

    /// The category.
    public let code: Code
    /// One line for the user, such as "unknown option '--jsn'; did you mean '--json'?".
    public let message: String
    /// The command whose help explains the right usage (`["handoff", "note", "edit"]`).
    public let commandPath: [String]

    /// Creates a usage error.
    public init(_ code: Code, _ message: String, commandPath: [String]) {
        self.code = code
        self.message = message
        self.commandPath = commandPath
    }

    /// The message.
    public var description: String { message }

    /// The line after the message: "See 'handoff note edit --help'."
    public var helpHint: String {
        "See '\(commandPath.joined(separator: " ")) --help'."
    }
}
