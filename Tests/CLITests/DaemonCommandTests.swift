import Foundation
import Testing

@Suite struct DaemonCommandTests {
    @Test(arguments: [["continue"], ["continue", "--print"], ["continue", "--from", "laptop", "--json"], ["watch"],
                      ["watch", "--json"], ["devices"], ["devices", "--json"], ["pair"], ["unpair", "laptop"],
                      ["status"], ["status", "--json"]])
    func commandsNeedingTheDaemonSayItIsUnreachableAndExit69(_ arguments: [String]) throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(arguments)
        #expect(result.status == 69)
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("handoff: error: the handoff daemon is not reachable"))
    }

    @Test func promptStaysSilentForPS1() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let result = try handoff.run(["prompt"])
        #expect(result.status == 69)
        #expect(result.output.isEmpty)
        #expect(result.error.isEmpty)
    }
}
