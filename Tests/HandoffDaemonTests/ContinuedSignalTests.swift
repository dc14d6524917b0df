import DBus
import Foundation
import HandoffBusContract
import HandoffClient
import HandoffDBusClient
import Testing

/// The app that offered an activity hears when a paired device continues it, and whether it asked to pause the
/// source (`handoff continue --pause-source`): `CurrentActivityContinued(s id, a{sv} details)`, sent to the
/// offering connection over two real daemons' buses.
@Suite(.serialized) struct ContinuedSignalTests {
    @Test func theOfferingConnectionHearsEachContinueAndWhetherToPause() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let connection = try machines.laptop.bus.connect()
        defer { connection.close() }
        let signal = HandoffBusAPI.Signal.currentActivityContinued
        let messages = try await connection.signals(
            matching: MatchRule.signal(interface: HandoffBusAPI.interface, member: signal.name))
        let heard = AsyncThrowingStream<(String, Bool?), any Error> { continuation in
            let task = Task {
                for await message in messages {
                    guard let (id, details) = try? signal.arguments(of: message) else { continue }
                    continuation.yield((id, details[HandoffBusAPI.ContinuedKey.pauseSource]))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        let app = DBusHandoffService(connection: connection, busDescription: "laptop bus")
        let offered = try await app.setCurrentActivity(.note(name: "n", title: "N", content: "song"))

        let desktop = try await machines.desktop.client()
        let listed = try await eventually { try await desktop.availableActivities().first }
        _ = try await desktop.continueActivity(listed.id, pauseSource: true) { _ in }
        let asked = try await first(heard)
        #expect(asked.0 == offered.rawValue)
        #expect(asked.1 == true, "--pause-source did not reach the app")

        // The next offer, continued without the request, is heard as such, under its own id.
        let next = try await app.setCurrentActivity(.note(name: "m", title: "M", content: "talk"))
        let relisted = try await eventually {
            try await desktop.availableActivities().first { $0.id != listed.id }
        }
        _ = try await desktop.continueActivity(relisted.id) { _ in }
        let plain = try await first(heard)
        #expect(plain.0 == next.rawValue)
        #expect(plain.1 == false)
    }
}
