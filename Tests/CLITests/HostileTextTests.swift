import Foundation
import HandoffClient
import Testing

/// Issue 25 §6: text a stranger chose reaches the terminal shown, never obeyed.
@Suite struct HostileTextTests {
    /// 16 bytes a pairing beacon may carry: erase the line, return, a code of the stranger's choosing, hide the rest.
    static let hostileName = "\u{1B}[2K\r654321\u{1B}[8m"

    @Test("a hostile device name in the pairing prompt cannot erase it or show a code of its own")
    func pairingPrompt() async throws {
        let harness = try InProcessHarness()
        await harness.service.setPairingName(Self.hostileName)
        #expect(Self.hostileName.utf8.count <= 16)
        #expect(await harness.run(["pair"], answer: "n") == 1)
        let prompt = try #require(harness.error.split(separator: "\n").first { $0.hasPrefix("Pair with") })
        #expect(prompt == "Pair with '\\u{1B}[2K\\u{D}654321\\u{1B}[8m'? Both screens must show 123456. [y/N] n")
        #expect(!harness.error.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" })
    }

    @Test("device, inbox and activity names are shown escaped on one line; JSON stays JSON")
    func listings() async throws {
        let harness = try InProcessHarness()
        let name = "evil\u{202E}txt.exe\n<0>forged\u{9B}2J"
        await harness.service.setDevices([DeviceInfo(id: "fp1", name: name, inRange: true, lastSeenSecondsAgo: 2)])
        #expect(await harness.run(["devices"]) == 0)
        #expect(harness.output == "evil\\u{202E}txt.exe\\u{A}<0>forged\\u{9B}2J  in range  fp1\n")
        #expect(await harness.run(["devices", "--json"]) == 0)
        let decoded = try JSONDecoder().decode([DeviceInfo].self, from: Data(harness.output.utf8))
        #expect(decoded.first?.name == name)
    }
}
