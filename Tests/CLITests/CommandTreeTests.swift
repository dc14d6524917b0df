import HandoffCommandLine
import HandoffNotes
import Testing
@testable import handoff

@Suite struct CommandTreeTests {
    @Test func handoffCommandTreeIsSound() {
        #expect(RootCommand.spec.problems() == [])
    }

    @Test func everyLeafCommandReachesItsImplementation() async throws {
        let sample: [[String]: [String]] = [
            ["note", "edit"]: ["x", "--stdin"], ["note", "list"]: [], ["note", "show"]: ["x"], ["continue"]: [],
            ["watch"]: [], ["prompt"]: [], ["devices"]: [], ["pair"]: [], ["unpair"]: ["x"], ["status"]: [],
            ["completions"]: ["bash"], ["manual"]: [],
            ["share"]: ["--text", "x"], ["inbox", "list"]: [], ["inbox", "take"]: ["--all"],
            ["inbox", "drop"]: ["0123456789abcdef"], ["outbox", "list"]: [], ["outbox", "cancel"]: ["0123456789abcdef"],
            ["copy"]: [], ["paste"]: [], ["clipboard", "follow"]: [], ["clipboard", "pause"]: [],
            ["clipboard", "resume"]: [], ["open"]: ["https://example.org/"], ["shell-init"]: ["bash"],
            ["terminal", "offer"]: ["--cwd", "/"], ["editor", "offer"]: ["x", "--line", "1"],
            ["browser-host"]: ["chrome-extension://cecbnhjfopncempjaelamclhabhiekei/"],
            ["doctor"]: ["--json"],
        ]
        let leaves = RootCommand.spec.allCommands().filter(\.command.subcommands.isEmpty)
            .map { Array($0.path.dropFirst()) }
        #expect(Set(leaves) == Set(sample.keys), "a new command needs a sample here")
        let harness = try InProcessHarness()
        for path in leaves {
            let status = await harness.run(path + (sample[path] ?? []))
            // 70 is what dispatch returns for a command without an implementation.
            #expect(status != 70, "\(path) is not dispatched: \(harness.error)")
            #expect(status != 64, "\(path) sample arguments are wrong: \(harness.error)")
        }
    }

    @Test func namesFromOtherDevicesAreMadeValid() {
        #expect(NoteName.sanitized("../../etc/passwd").rawValue == "-..-etc-passwd")
        #expect(NoteName.sanitized(".hidden.md").rawValue == "hidden")
        #expect(NoteName.sanitized("   ").rawValue == "Continued note")
        #expect(NoteName.sanitized("Groceries").rawValue == "Groceries")
        #expect(NoteName.sanitized(String(repeating: "é", count: 300)).rawValue.utf8.count <= NoteName.maximumLength)
    }
}
