import HandoffCommandLine
import Testing

@Suite struct HelpFormatterTests {
    let help = HelpFormatter().help(for: Fixture.draw, path: ["tool", "shapes", "draw"])

    @Test func hasTheSectionsInManPageOrder() throws {
        let headings = ["OVERVIEW:", "USAGE:", "ARGUMENTS:", "OPTIONS:", "EXAMPLES:"]
        let positions = try headings.map { heading in
            try #require(help.range(of: heading)?.lowerBound, "missing \(heading)")
        }
        #expect(positions == positions.sorted())
    }

    @Test func usageLineListsEveryParameterWithAHangingIndent() {
        #expect(help.contains("""
            USAGE: tool shapes draw [--json] [--verbose] [--count <n>] [--ratio <x>]
                   [--shape <shape>] [--tag <tag>] ... [--file <path>] <target> [<extra>]
            """))
    }

    @Test func optionsShowShortNamesDefaultsAndChoices() {
        #expect(help.contains("  -c, --count <n>         How many. (default: 3)"))
        #expect(help.contains("  --shape <shape>         The shape to draw. (values: circle, square)"))
        #expect(help.contains("  -h, --help              Show help information."))
    }

    @Test func textIsWrappedToEightyColumns() {
        for line in help.split(separator: "\n") {
            #expect(line.count <= 80, "too long: \(line)")
        }
        #expect(help.contains("A second paragraph"))
    }

    @Test func rootHelpListsSubcommandsVersionAndExtraSections() {
        let root = HelpFormatter().help(for: Fixture.root, path: ["tool"])
        #expect(root.contains("USAGE: tool <command>"))
        #expect(root.contains("  shapes                  Work with shapes."))
        #expect(root.contains("  --version               Show the version."))
        #expect(root.contains("""
            EXIT STATUS:
              0                       Success.
              64                      Usage error.
            """))
    }
}
