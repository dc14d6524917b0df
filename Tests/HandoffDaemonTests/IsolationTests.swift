import Foundation
import HandoffBusContract
import HandoffClient
import Testing

/// The trust group belongs to the Unix user who paired; every other user is refused, and never sees, continues,
/// replaces or resigns the owner's activities.
@Suite(.serialized) struct IsolationTests {
    static let otherUser: UInt32 = 4242

    /// Runs `body` and returns the ServiceError it threw.
    func refusal(_ body: () async throws -> Void) async -> ServiceError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? ServiceError
        }
    }

    @Test func anotherUserIsRefusedEverythingButAnAnonymousStatus() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let owner = try await machines.desktop.client()
        let stranger = try machines.desktop.client(asUser: Self.otherUser)
        let laptop = try await machines.laptop.client()
        let note = ActivityContent.note(name: "secret", title: "Secret", content: "owner's note")
        _ = try await laptop.setCurrentActivity(note)
        let remote = try await eventually { try await owner.availableActivities().first }
        let mine = try await owner.setCurrentActivity(.note(name: "mine", title: "Mine", content: "owner only"))

        let attempts: [(String, () async throws -> Void)] = [
            ("set", { _ = try await stranger.setCurrentActivity(note) }),
            ("update", { try await stranger.updateCurrentActivity(mine, with: note) }),
            ("resign", { try await stranger.resignCurrentActivity(mine, after: .zero) }),
            ("list", { _ = try await stranger.availableActivities() }),
            ("continue", { _ = try await stranger.continueActivity(remote.id) { _ in } }),
            ("watch", { _ = try await stranger.activityEvents() }),
            ("devices", { _ = try await stranger.devices() }),
            ("pair", { _ = try await stranger.pair { _ in true } }),
            ("unpair", { try await stranger.unpair("laptop") }),
        ]
        for (what, attempt) in attempts {
            let error = await refusal(attempt)
            #expect(error?.code == .permissionDenied, "\(what): \(String(describing: error))")
            #expect(error?.remoteCode == "org.handoff.Error.AccessDenied", "\(what)")
        }
        let status = try await stranger.status()
        #expect(status.currentActivity == nil)
        #expect(status.pairedDevices == 0)
        #expect(status.availableActivities == 0)
        // Nothing the stranger tried changed the owner's state.
        #expect(try await owner.status().currentActivity?.id == mine)
        #expect(try await owner.availableActivities().map(\.id) == [remote.id])
        #expect(try await owner.continueActivity(remote.id) { _ in }.content == note)
    }

    @Test func signalsReachOnlyTheOwnersConnections() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let owner = try await machines.desktop.client()
        let events = try await owner.activityEvents()
        // A stranger subscribing to the signals directly, without WatchActivities, gets nothing: they are unicast.
        let strangerConnection = try machines.desktop.bus.connect()
        let eavesdropped = try await strangerConnection.signals(
            matching: .signal(interface: HandoffBusAPI.interface).sender(HandoffBusAPI.busName))
        let laptop = try await machines.laptop.client()
        _ = try await laptop.setCurrentActivity(.note(name: "n", title: "N", content: "private"))
        _ = try await first(events)
        let leaked = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in eavesdropped { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(500))
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        #expect(!leaked)
    }

    @Test func beforeAnyPairingUsersCannotReplaceOrResignEachOthersActivity() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let first = try await machines.laptop.client()
        let second = try machines.laptop.client(asUser: Self.otherUser)
        let id = try await first.setCurrentActivity(.note(name: "a", title: "A", content: "a"))
        let replace = await refusal { _ = try await second.setCurrentActivity(.note(name: "b", title: "B", content: "b")) }
        #expect(replace?.code == .permissionDenied)
        let resign = await refusal { try await second.resignCurrentActivity(id, after: .zero) }
        #expect(resign?.code == .permissionDenied)
        #expect(try await first.status().currentActivity?.id == id)
        #expect(try await second.status().currentActivity == nil)
    }
}
