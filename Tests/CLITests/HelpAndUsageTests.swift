import Foundation
import Testing

@Suite struct HelpAndUsageTests {
    @Test func rootHelpListsEveryCommandAndExitStatus() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(["--help"])
        #expect(result.status == 0)
        for command in ["note", "continue", "watch", "prompt", "devices", "pair", "unpair", "status", "completions"] {
            #expect(result.output.contains("\n  \(command) "), "missing \(command)")
        }
        #expect(result.output.contains("EXIT STATUS:"))
        #expect(result.output.contains("  69                      The handoff daemon is not reachable."))
        #expect(result.error.isEmpty)
    }

    @Test(arguments: [["note", "edit"], ["note", "list"], ["note", "show"], ["continue"], ["watch"], ["prompt"],
                      ["devices"], ["pair"], ["unpair"], ["status"], ["completions"], ["manual"]])
    func everySubcommandHasHelp(_ path: [String]) throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(path + ["--help"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("OVERVIEW: "))
        #expect(result.output.contains("USAGE: handoff " + path.joined(separator: " ")))
        for line in result.output.split(separator: "\n") {
            #expect(line.count <= 80, "help line too long: \(line)")
        }
    }

    @Test func versionPrintsTheVersion() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(["--version"])
        #expect(result.status == 0)
        #expect(result.output == "handoff 0.1.0\n")
    }

    @Test func usageErrorsExit64WithASuggestionAndAHint() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let typo = try handoff.run(["note", "list", "--jsno"])
        #expect(typo.status == 64)
        #expect(typo.output.isEmpty)
        #expect(typo.error == "handoff: error: unknown option '--jsno'; did you mean '--json'?\n"
            + "See 'handoff note list --help'.\n")
        let command = try handoff.run(["contineu"])
        #expect(command.status == 64)
        #expect(command.error.contains("did you mean 'continue'?"))
        #expect(try handoff.run(["note", "edit", "x", "--grace"]).status == 64)
        #expect(try handoff.run(["note", "edit", "x", "--grace", "soon"]).status == 64)
        #expect(try handoff.run(["note", "edit", "x", "--grace", "-5", "--stdin"]).status == 64)
        #expect(try handoff.run(["completions", "fish"]).error.contains("expected one of bash, zsh"))
        #expect(try handoff.run([]).status == 64)
    }

    @Test func badNoteNamesAreUsageErrorsAndWriteNothing() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(["note", "edit", "../escape", "--stdin"], input: "x")
        #expect(result.status == 64)
        #expect(result.error.contains("invalid note name '../escape'"))
        #expect(!FileManager.default.fileExists(atPath: handoff.home + "/data/handoff/escape.md"))
    }
}
