import HandoffCommandLine
import Testing

@Suite struct CommandParserTests {
    @Test func descendsIntoSubcommandsAndReadsTypedValues() throws {
        let run = try Fixture.invocation(
            "shapes", "draw", "--count", "5", "--ratio=0.5", "--shape", "square", "-j", "paper", "7")
        #expect(run.path == ["tool", "shapes", "draw"])
        #expect(run.subcommandPath == ["shapes", "draw"])
        #expect(run[Fixture.count] == 5)
        #expect(run[Fixture.ratio] == 0.5)
        #expect(run[Fixture.shape] == .square)
        #expect(run[Fixture.json])
        #expect(!run[Fixture.verbose])
        #expect(run[Fixture.target] == "paper")
        #expect(run[Fixture.extra] == 7)
    }

    @Test func appliesDefaultsAndLeavesOptionalValuesAbsent() throws {
        let run = try Fixture.invocation("shapes", "draw", "paper")
        #expect(run[Fixture.count] == 3)
        #expect(run[Fixture.ratio] == nil)
        #expect(run[Fixture.extra] == nil)
        #expect(run.all(Fixture.tag).isEmpty)
    }

    @Test func acceptsShortFormsAndFlagClusters() throws {
        let attached = try Fixture.invocation("shapes", "draw", "-c9", "paper")
        #expect(attached[Fixture.count] == 9)
        let cluster = try Fixture.invocation("shapes", "draw", "-jvc", "4", "paper")
        #expect(cluster[Fixture.json] && cluster[Fixture.verbose])
        #expect(cluster[Fixture.count] == 4)
    }

    @Test func keepsEveryValueOfARepeatingOptionAndTheLastOfOthers() throws {
        let run = try Fixture.invocation("shapes", "draw", "--tag", "a", "--tag=b", "-c", "1", "-c", "2", "paper")
        #expect(run.all(Fixture.tag) == ["a", "b"])
        #expect(run[Fixture.count] == 2)
    }

    @Test func treatsNegativeNumbersAsValuesAndDoubleDashAsEndOfOptions() throws {
        let negative = try Fixture.invocation("shapes", "draw", "--count", "-4", "paper", "-2")
        #expect(negative[Fixture.count] == -4)
        #expect(negative[Fixture.extra] == -2)
        let dashed = try Fixture.invocation("shapes", "draw", "--", "--json")
        #expect(dashed[Fixture.target] == "--json")
        #expect(!dashed[Fixture.json])
    }

    @Test func helpIsFoundAtAnyDepthAndVersionOnlyAtTheRoot() throws {
        guard case .help(let path, let command) = try Fixture.parse("shapes", "draw", "--count", "2", "-h") else {
            Issue.record("expected help")
            return
        }
        #expect(path == ["tool", "shapes", "draw"])
        #expect(command.name == "draw")
        guard case .help(let rootPath, _) = try Fixture.parse("--help") else {
            Issue.record("expected help")
            return
        }
        #expect(rootPath == ["tool"])
        guard case .version(let version) = try Fixture.parse("--version") else {
            Issue.record("expected version")
            return
        }
        #expect(version == "1.2.3")
        #expect(Fixture.usageError("status", "--version")?.code == .unknownOption)
    }
}
