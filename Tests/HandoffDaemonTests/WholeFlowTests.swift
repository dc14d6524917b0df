import Foundation
import HandoffClient
import HandoffTesting
import Testing

@Suite(.serialized) struct WholeFlowTests {
    @Test func aNoteOfferedOnTheLaptopIsContinuedOnTheDesktopThroughDBus() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        let desktop = try await machines.desktop.client()
        let events = try await desktop.activityEvents()

        let note = ActivityContent.note(name: "groceries", title: "Groceries", content: "# Groceries\nmilk\neggs\n")
        let id = try await laptop.setCurrentActivity(note)
        let appeared = try await first(events) { $0.event == .appeared }
        #expect(appeared.activity.device == "laptop")
        #expect(appeared.activity.type == ActivityContent.noteType)

        let available = try await desktop.availableActivities()
        #expect(available.map(\.id) == [appeared.activity.id])

        let phases = Recorder<ContinueProgress.Phase>()
        let continued = try await desktop.continueActivity(appeared.activity.id) { phases.append($0.phase) }
        #expect(continued.content == note)
        #expect(continued.summary.title == "Groceries")
        #expect(continued.summary.device == "laptop")
        #expect(phases.all.first == .requesting)
        #expect(phases.all.last == .finishing)
        // Continued activities leave the list, and watchers hear it.
        let gone = try await first(events) { $0.event == .disappeared }
        #expect(gone.activity.id == appeared.activity.id)
        #expect(try await desktop.availableActivities().isEmpty)

        // Every save updates the offer; the desktop sees a new availability.
        var edited = note
        edited.userInfo[ActivityContent.NoteKey.content] = "# Groceries\nmilk\neggs\nbread\n"
        try await laptop.updateCurrentActivity(id, with: edited)
        let update = try await first(events) { $0.event == .appeared }
        #expect(update.activity.id != appeared.activity.id)
        let again = try await desktop.continueActivity(update.activity.id) { _ in }
        #expect(again.content == edited)

        #expect(try await laptop.status().currentActivity?.id == id)
        try await laptop.resignCurrentActivity(id, after: .zero)
        #expect(try await laptop.status().currentActivity == nil)
    }

    @Test func aLargePayloadReportsTransferProgressUpToItsSize() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        let desktop = try await machines.desktop.client()
        let text = String(repeating: "a line of a long note\n", count: 2000)
        _ = try await laptop.setCurrentActivity(.note(name: "long", title: "Long", content: text))
        let remote = try await eventually { try await desktop.availableActivities().first }
        let reports = Recorder<ContinueProgress>()
        let continued = try await desktop.continueActivity(remote.id) { reports.append($0) }
        #expect(continued.content.userInfo["content"] == text)
        let transferring = reports.all.filter { $0.phase == .transferring }
        #expect(transferring.count > 2)
        #expect(transferring.last?.receivedBytes == transferring.last?.totalBytes)
        #expect(transferring.map(\.receivedBytes) == transferring.map(\.receivedBytes).sorted())
        #expect(reports.all.last?.totalBytes == continued.summary.size)
    }

    @Test func theGracePeriodKeepsTheActivityOfferedThenWithdrawsIt() async throws {
        // On the laptop's virtual time: the grace period passes when the test says, never by itself.
        let clock = VirtualClock()
        let machines = try await TwoMachines.make(laptop: { $0.clock = clock })
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        let id = try await laptop.setCurrentActivity(.note(name: "n", title: "N", content: "x"))
        try await laptop.resignCurrentActivity(id, after: .milliseconds(300))
        clock.advance(by: .milliseconds(299))
        try await settle()
        #expect(try await laptop.status().currentActivity?.id == id, "withdrawn before the grace period ended")
        clock.advance(by: .milliseconds(1))
        _ = try await eventually { try await laptop.status().currentActivity == nil ? true : nil }
        // Updating within the grace period cancels it: the note is being edited again.
        let second = try await laptop.setCurrentActivity(.note(name: "n", title: "N", content: "y"))
        try await laptop.resignCurrentActivity(second, after: .milliseconds(200))
        try await laptop.updateCurrentActivity(second, with: .note(name: "n", title: "N", content: "z"))
        clock.advance(by: .milliseconds(500))
        try await settle()
        #expect(try await laptop.status().currentActivity?.id == second)
    }

    @Test func trustOwnerAndPairingSurviveARestart() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        try await machines.laptop.restart()
        let laptop = try await machines.laptop.client()
        let desktop = try await machines.desktop.client()
        #expect(try await laptop.devices().map(\.name) == ["desktop"])
        #expect(try await laptop.status().pairedDevices == 1)
        // The owner is remembered: another user is still refused after the restart.
        let stranger = try machines.laptop.client(asUser: 4242)
        await #expect(throws: ServiceError.self) { try await stranger.devices() }
        // And activities flow again with no new pairing.
        let note = ActivityContent.note(name: "after", title: "After", content: "restart")
        _ = try await laptop.setCurrentActivity(note)
        let remote = try await eventually { try await desktop.availableActivities().first }
        #expect(try await desktop.continueActivity(remote.id) { _ in }.content == note)
        let owner = try String(contentsOf: machines.laptop.stateDirectory.appendingPathComponent("owner.json"),
                               encoding: .utf8)
        #expect(owner.contains("\"uid\" : \(getuid())"))
        let mode = try FileManager.default.attributesOfItem(
            atPath: machines.laptop.stateDirectory.appendingPathComponent("trust.json").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aCorruptTrustStoreStopsTheDaemonInsteadOfBeingReplaced() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let trustFile = machines.laptop.stateDirectory.appendingPathComponent("trust.json")
        try Data("{ not json".utf8).write(to: trustFile)
        await #expect(throws: (any Error).self) { try await machines.laptop.restart() }
        #expect(try String(contentsOf: trustFile, encoding: .utf8) == "{ not json")
    }
}
