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
        #expect(result.error.hasPrefix("handoff: error: the handoff daemon is not reachable"))
        if arguments.contains("--json") {
            // The failure as a document too, for a script that reads standard output.
            let document = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            let error = document?["error"] as? [String: Any]
            #expect(error?["exitCode"] as? Int == 69, "\(result.output)")
            #expect((error?["message"] as? String)?.hasPrefix("the handoff daemon is not reachable") == true)
            #expect(error?["causes"] is [Any])
        } else {
            #expect(result.output.isEmpty)
        }
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
