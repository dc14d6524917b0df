import HandoffCommandLine

/// A small command tree exercising every kind of parameter.
enum Fixture {
    enum Shape: String, CaseIterable, ArgumentValue {
        case circle, square
    }

    static let json = Flag("json", short: "j", help: "Print JSON. Machine readable.")
    static let verbose = Flag("verbose", short: "v", help: "Say more.")
    static let count = Option<Int>("count", short: "c", valueName: "n", help: "How many.", defaultValue: 3)
    static let ratio = Option<Double>("ratio", valueName: "x", help: "A ratio.")
    static let shape = Option<Shape>("shape", valueName: "shape", help: "The shape to draw.")
    static let tag = Option<String>("tag", valueName: "tag", help: "A tag; repeatable.", repeating: true)
    static let file = Option<String>("file", valueName: "path", help: "A file.", completion: .file)
    static let target = Argument<String>(
        "target", help: "What to draw on.", completion: .shellCommand("printf 'alpha beta\\ngamma\\n'"))
    static let extra = Argument<Int>("extra", help: "An optional number.", optional: true)

    static let draw = Command(
        name: "draw",
        abstract: "Draw shapes on a target.",
        discussion: """
            Draws the shapes.

            A second paragraph that is long enough to need wrapping when it is printed at eighty columns wide.
            """,
        parameters: [json, verbose, count, ratio, shape, tag, file, target, extra],
        examples: [Example("tool shapes draw paper", "Draw three circles.")])
    static let list = Command(name: "list", abstract: "List shapes.", parameters: [json])
    static let shapes = Command(name: "shapes", abstract: "Work with shapes.", subcommands: [draw, list])
    static let version = Command(name: "status", abstract: "Show status.")

    static let root = Command(
        name: "tool",
        abstract: "A tool for tests.",
        subcommands: [shapes, version],
        sections: [HelpSection("EXIT STATUS", entries: [.init("0", "Success."), .init("64", "Usage error.")])],
        version: "1.2.3")

    static func parse(_ words: String...) throws(UsageError) -> ParseOutcome {
        try CommandParser(root: root).parse(words)
    }

    static func invocation(_ words: String...) throws -> Invocation {
        guard case .run(let invocation) = try CommandParser(root: root).parse(words) else {
            throw UsageError(.missingArgument, "not a run outcome", commandPath: [])
        }
        return invocation
    }

    static func usageError(_ words: String...) -> UsageError? {
        do {
            _ = try CommandParser(root: root).parse(words)
            return nil
        } catch {
            return error
        }
    }
}
