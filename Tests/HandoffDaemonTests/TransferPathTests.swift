import Foundation
import HandoffClient
import HandoffTesting
import Testing

/// The daemon tells the caller of Continue which path the bytes took (issue 9): `l2cap`, or `gatt` with the
/// reason it fell back, as `handoff continue --json` prints them; and, on every path, how far the payload has got
/// (the engine's reports, issue 26).
@Suite(.serialized) struct TransferPathTests {
    private func continueNote(channel: ChannelAvailability?) async throws -> ContinuedActivity {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        var conditions = LinkConditions()
        conditions.channel = channel
        await machines.ether.setConditions(conditions)
        let laptop = try await machines.laptop.client()
        let desktop = try await machines.desktop.client()
        _ = try await laptop.setCurrentActivity(.note(name: "path", title: "Path", content: "which way?"))
        let remote = try await eventually { try await desktop.availableActivities().first }
        let reports = Recorder<ContinueProgress>()
        let continued = try await desktop.continueActivity(remote.id) { reports.append($0) }
        #expect(continued.content.userInfo["content"] == "which way?")
        // Progress: requesting, the payload from nothing at the source's first answer to all of it, finishing.
        #expect(reports.all.map(\.phase).first == .requesting)
        #expect(reports.all.map(\.phase).last == .finishing)
        let transferring = reports.all.filter { $0.phase == .transferring }
        let total = try #require(transferring.first?.totalBytes)
        #expect(transferring.first?.receivedBytes == 0)
        #expect(transferring.last?.receivedBytes == total)
        #expect(transferring.allSatisfy { $0.totalBytes == total })
        return continued
    }

    @Test func aContinueOverTheChannelSaysL2CAP() async throws {
        let continued = try await continueNote(channel: .open(maximumSDU: 65535))
        #expect(continued.transport == "l2cap")
        #expect(continued.fallback == nil)
    }

    @Test func aFallbackSaysGATTAndWhy() async throws {
        let continued = try await continueNote(channel: .refused)
        #expect(continued.transport == "gatt")
        #expect(continued.fallback == "refused")
    }

    @Test func aGATTOnlyRadioSaysGATTWithoutAFallback() async throws {
        let continued = try await continueNote(channel: nil)
        #expect(continued.transport == "gatt")
        #expect(continued.fallback == nil)
    }
}
