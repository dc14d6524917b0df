import HandoffCommandLine
import Testing
@testable import handoff

/// The `handoff` tree is declared once, as types: every command it describes is the command that runs.
@Suite struct CommandDeclarationTests {
    @Test func everyDescribedLeafHasARunnerAndNoGroupHasOne() {
        for (path, command) in RootCommand.spec.allCommands() {
            let below = path.dropFirst()
            if command.subcommands.isEmpty {
                #expect(RootCommand.runner(for: below) != nil, "\(path) is described but does not run")
            } else {
                #expect(RootCommand.runner(for: below) == nil, "\(path) is a group but runs")
            }
        }
    }

    @Test func groupsWithADefaultNameOneOfTheirSubcommands() {
        for (path, command) in RootCommand.spec.allCommands() {
            guard let name = command.defaultSubcommand else { continue }
            #expect(command.subcommand(named: name) != nil, "\(path) defaults to a missing '\(name)'")
        }
        #expect(RootCommand.spec.descendant(["inbox"])?.defaultSubcommand == "list")
        #expect(RootCommand.spec.descendant(["outbox"])?.defaultSubcommand == "list")
    }
}
