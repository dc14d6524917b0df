import HandoffCommandLine
import Testing

/// A small tree declared as types: each command's description and its run in one type.
private enum Tool: CommandGroup {
    typealias Context = Recorder
    static let configuration = CommandConfiguration(name: "tool", abstract: "A tool for tests.", version: "1.2.3")
    static var subcommands: [any CommandNode<Recorder>.Type] { [Shapes.self, Status.self] }
}

private enum Shapes: CommandGroup {
    typealias Context = Recorder
    static let configuration = CommandConfiguration(name: "shapes", abstract: "Work with shapes.")
    static var subcommands: [any CommandNode<Recorder>.Type] { [Draw.self, List.self] }
    static var defaultSubcommand: (any CommandNode<Recorder>.Type)? { List.self }
}

private enum Draw: RunnableCommand {
    typealias Context = Recorder
    struct Parameters: ParameterSet {
        let json = Flag("json", short: "j", help: "Print JSON.")
        let count = Option<Int>("count", short: "c", valueName: "n", help: "How many.", defaultValue: 3)
        let tag = Option<String>("tag", valueName: "tag", help: "A tag; repeatable.", repeating: true)
        let note = "not a parameter"
        let target = Argument<String>("target", help: "What to draw on.")
        let extra = Argument<Int>("extra", help: "More numbers.", optional: true, repeating: true)
    }

    static let configuration = CommandConfiguration(name: "draw", abstract: "Draw shapes on a target.")

    static func run(_ invocation: Parsed<Parameters>, context: Recorder) async throws -> ExitCode {
        await context.record(
            "draw json=\(invocation[\.json]) count=\(invocation[\.count] ?? 0) tags=\(invocation.all(\.tag)) "
                + "target=\(invocation[\.target] ?? "") extra=\(invocation.all(\.extra))")
        return .success
    }
}

private enum List: RunnableCommand {
    typealias Context = Recorder
    struct Parameters: ParameterSet {
        let json = Flag("json", help: "Print JSON.")
    }

    static let configuration = CommandConfiguration(name: "list", abstract: "List shapes.")

    static func run(_ invocation: Parsed<Parameters>, context: Recorder) async throws -> ExitCode {
        await context.record("list json=\(invocation[\.json])")
        return ExitCode(rawValue: 3)
    }
}

private enum Status: RunnableCommand {
    typealias Context = Recorder
    static let configuration = CommandConfiguration(name: "status", abstract: "Show status.")

    static func run(_ invocation: Parsed<NoParameters>, context: Recorder) async throws -> ExitCode {
        await context.record("status")
        return .success
    }
}

/// What the commands ran with, in order.
private actor Recorder {
    var lines: [String] = []

    func record(_ line: String) {
        lines.append(line)
    }
}

@Suite struct CommandNodeTests {
    private func run(_ words: String...) async throws -> (ExitCode, [String]) {
        guard case .run(let invocation) = try CommandParser(root: Tool.command).parse(words) else {
            Issue.record("\(words) did not parse to a command to run")
            return (.failure, [])
        }
        let runner = try #require(Tool.runner(for: invocation))
        let recorder = Recorder()
        let code = try await runner(invocation, recorder)
        return (code, await recorder.lines)
    }

    @Test func theTypesDescribeTheTree() {
        let command = Tool.command
        #expect(command.name == "tool")
        #expect(command.version == "1.2.3")
        #expect(command.subcommands.map(\.name) == ["shapes", "status"])
        #expect(command.descendant(["shapes"])?.defaultSubcommand == "list")
        #expect(command.descendant(["shapes"])?.subcommands.map(\.name) == ["draw", "list"])
        #expect(command.problems() == [])
    }

    @Test func parametersAreTheDeclaredPropertiesInOrder() {
        #expect(Draw.Parameters.parameters.map(\.key) == ["json", "count", "tag", "target", "extra"])
        #expect(Tool.command.descendant(["shapes", "draw"])?.parameters.map(\.key)
            == ["json", "count", "tag", "target", "extra"])
        #expect(NoParameters.parameters.isEmpty)
        #expect(Tool.command.descendant(["status"])?.parameters.isEmpty == true)
    }

    @Test func theSelectedCommandRunsWithItsOwnTypedValues() async throws {
        let (code, lines) = try await run("shapes", "draw", "-j", "--tag", "a", "paper", "--tag=b", "1", "2")
        #expect(code == .success)
        #expect(lines == ["draw json=true count=3 tags=[\"a\", \"b\"] target=paper extra=[1, 2]"])
        let (_, counted) = try await run("shapes", "draw", "-c", "7", "paper")
        #expect(counted == ["draw json=false count=7 tags=[] target=paper extra=[]"])
    }

    @Test func aGroupGivenAloneRunsItsDefaultSubcommand() async throws {
        let (code, lines) = try await run("shapes", "--json")
        #expect(code.rawValue == 3)
        #expect(lines == ["list json=true"])
    }

    @Test func aCommandWithoutParametersRuns() async throws {
        let (code, lines) = try await run("status")
        #expect(code == .success)
        #expect(lines == ["status"])
    }

    @Test func onlyRunnableCommandsOfThisTreeHaveARunner() {
        #expect(Tool.runner(for: ["shapes", "draw"][...]) != nil)
        #expect(Tool.runner(for: ["status"][...]) != nil)
        #expect(Tool.runner(for: ["shapes"][...]) == nil)
        #expect(Tool.runner(for: [][...]) == nil)
        #expect(Tool.runner(for: ["status", "more"][...]) == nil)
        #expect(Tool.runner(for: ["nothing"][...]) == nil)
    }
}
