import HandoffCommandLine
import Testing

@Suite struct CommandValidationTests {
    @Test func aSoundTreeHasNoProblems() {
        #expect(Fixture.root.problems().isEmpty)
    }

    @Test func findsAmbiguousNamesAndMisorderedArguments() {
        let bad = Command(
            name: "bad", abstract: "",
            parameters: [
                Flag("json", short: "j", help: "x"), Flag("json", help: "y"), Flag("jolly", short: "j", help: "z"),
                Flag("help", help: "clash"), Argument<String>("a", help: "a", optional: true),
                Argument<String>("b", help: "b"),
            ])
        let problems = bad.problems()
        #expect(problems.contains("'bad' has no abstract"))
        #expect(problems.contains("'bad' declares --json twice (or reuses a built-in)"))
        #expect(problems.contains("'bad' declares --help twice (or reuses a built-in)"))
        #expect(problems.contains("'bad' declares -j twice (or reuses -h)"))
        #expect(problems.contains("'bad': required <b> follows an optional or repeating one"))
    }

    @Test func helpWordShowsHelpForTheNamedCommand() throws {
        guard case .help(let path, _) = try Fixture.parse("help", "shapes", "draw") else {
            Issue.record("expected help")
            return
        }
        #expect(path == ["tool", "shapes", "draw"])
        guard case .help(let rootPath, _) = try Fixture.parse("help") else {
            Issue.record("expected help")
            return
        }
        #expect(rootPath == ["tool"])
        #expect(Fixture.usageError("help", "shapse")?.message
            == "unknown command 'shapse' for 'tool'; did you mean 'shapes'?")
    }
}
