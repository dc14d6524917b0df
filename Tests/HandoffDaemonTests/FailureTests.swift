import DBus
import Foundation
import HandoffBusContract
import HandoffClient
import HandoffDBusClient
import HandoffKit
import HandoffTesting
import Testing

/// Every documented failure reaches the client as `org.handoff.Error.<Name>` with HandoffKit's code and message.
@Suite(.serialized) struct FailureTests {
    static let note = ActivityContent.note(name: "n", title: "N", content: "some text")
    static let bigNote = ActivityContent.note(name: "big", title: "Big", content: String(repeating: "x", count: 10_000))

    /// Offers `content` on the laptop and returns the desktop's client and the availability it sees.
    func offered(_ content: ActivityContent, _ machines: TwoMachines) async throws
        -> (any HandoffService, ActivitySummary)
    {
        _ = try await machines.laptop.client().setCurrentActivity(content)
        let desktop = try await machines.desktop.client()
        return (desktop, try await eventually { try await desktop.availableActivities().first })
    }

    @Test func anUndeclaredTypeIsRefusedBeforeAnythingIsAdvertised() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        let failure = await serviceError {
            _ = try await laptop.setCurrentActivity(ActivityContent(type: "org.example.sketch", title: "S", userInfo: [:]))
        }
        #expect(failure?.remoteCode == "org.handoff.Error.UndeclaredActivityType")
        #expect(failure?.message.contains("4613") == true)
    }

    @Test func aReceiverThatDidNotDeclareTheTypeFailsWith4613() async throws {
        let machines = try await TwoMachines.make(laptop: { configuration in
            configuration.handoff.declaredTypes = try! DeclaredActivityTypes(["org.handoff.note", "org.example.sketch"])
        })
        defer { Task { await machines.shutDown() } }
        let sketch = ActivityContent(type: "org.example.sketch", title: "Sketch", userInfo: ["lines": "3"])
        let (desktop, remote) = try await offered(sketch, machines)
        #expect(remote.type == "(undeclared type)")
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.code == .continueFailed)
        #expect(failure?.remoteCode == "org.handoff.Error.UndeclaredActivityType")
        #expect(failure?.message.hasPrefix("[4613 undeclaredActivityType]") == true)
    }

    @Test func aPayloadOverTheSourcesLimitIsRefusedWhenOffered() async throws {
        let machines = try await TwoMachines.make(laptop: { $0.handoff.maximumPayloadSize = 4096 })
        defer { Task { await machines.shutDown() } }
        let failure = await serviceError { _ = try await machines.laptop.client().setCurrentActivity(Self.bigNote) }
        #expect(failure?.code == .failed)
        #expect(failure?.remoteCode == "org.handoff.Error.UserInfoTooLarge")
        #expect(failure?.message.contains("4611") == true)
    }

    @Test func aPayloadOverTheReceiversLimitFailsWith4611() async throws {
        let machines = try await TwoMachines.make(desktop: { $0.handoff.maximumPayloadSize = 4096 })
        defer { Task { await machines.shutDown() } }
        let (desktop, remote) = try await offered(Self.bigNote, machines)
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.code == .continueFailed)
        #expect(failure?.remoteCode == "org.handoff.Error.UserInfoTooLarge")
        #expect(failure?.message.hasPrefix("[4611 userInfoTooLarge]") == true)
    }

    @Test func aSourceThatWentAwayFailsWith4609AndLeavesTheList() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let (desktop, remote) = try await offered(Self.note, machines)
        await machines.ether.setReachable(machines.laptop.radio.address, false)
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.remoteCode == "org.handoff.Error.ConnectionUnavailable")
        #expect(failure?.message.hasPrefix("[4609 connectionUnavailable]") == true)
        #expect(try await desktop.availableActivities().isEmpty)
    }

    /// A source that was only out of reach for the moment (busy, or its link lost) is listed again as soon as its
    /// beacon is heard again, and the user's second `continue` works: no edit on the source is needed.
    @Test func aSourceHeardAgainAfterA4609IsListedAgainAndContinues() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let (desktop, remote) = try await offered(Self.note, machines)
        let laptop = machines.laptop.radio.address
        await machines.ether.setReachable(laptop, false)
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.remoteCode == "org.handoff.Error.ConnectionUnavailable")
        #expect(try await desktop.availableActivities().isEmpty)
        await machines.ether.setReachable(laptop, true)
        let beacon = try #require(await machines.ether.currentAdvertisement(of: laptop))
        await machines.ether.inject(beacon: beacon, from: laptop)
        let again = try await eventually { try await desktop.availableActivities().first }
        #expect(again.id == remote.id)
        let continued = try await desktop.continueActivity(again.id) { _ in }
        #expect(continued.content == Self.note)
    }

    @Test func aSourceThatStopsAnsweringFailsWith4610() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let (desktop, remote) = try await offered(Self.note, machines)
        var conditions = LinkConditions()
        conditions.dropAllNotifications = true
        await machines.ether.setConditions(conditions)
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.remoteCode == "org.handoff.Error.RemoteApplicationTimedOut")
        #expect(failure?.message.hasPrefix("[4610 remoteApplicationTimedOut]") == true)
    }

    @Test func aSourceThatUnpairedUsFailsWith4612() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let (desktop, remote) = try await offered(Self.note, machines)
        try await machines.laptop.client().unpair("desktop")
        #expect(try await machines.laptop.client().devices().isEmpty)
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.remoteCode == "org.handoff.Error.UntrustedPeer")
        #expect(failure?.message.hasPrefix("[4612 untrustedPeer]") == true)
    }

    @Test func unknownIdsDevicesAndBadArgumentsGetTheirOwnErrors() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let desktop = try await machines.desktop.client()
        let missing = await serviceError { _ = try await desktop.continueActivity(ActivityID(rawValue: "nope")) { _ in } }
        #expect(missing?.code == .noActivity)
        let device = await serviceError { try await desktop.unpair("toaster") }
        #expect(device?.code == .unknownDevice)
        let stale = await serviceError { try await desktop.resignCurrentActivity(ActivityID(rawValue: "old"), after: .zero) }
        #expect(stale?.remoteCode == "org.handoff.Error.NotCurrent")
        // A userInfo that is not a property list is refused, and the daemon keeps serving.
        let raw = try machines.desktop.bus.connect()
        do {
            _ = try await raw.call(
                HandoffBusAPI.Method.setCurrentActivity, "org.handoff.note", "t", [1, 2, 3],
                destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath, interface: HandoffBusAPI.interface)
            Issue.record("a userInfo that is not a property list was accepted")
        } catch {
            #expect(error.name?.rawValue == "org.handoff.Error.InvalidArguments")
        }
        #expect(try await desktop.status().version == "0.1.0")
    }

    @Test func aDaemonThatIsNotRunningIsUnreachable() async throws {
        let connector = DBusServiceConnector(bus: .address("unix:path=/nonexistent/handoff-test-bus"))
        let failure = await serviceError { _ = try await connector.connect() }
        #expect(failure?.code == .unreachable)
    }
}
