import DBus
import DBusTestSupport
import HandoffBusContract
import HandoffClient
import HandoffDBusClient
import HandoffShared
import HandoffTesting
import Testing

/// `handoff continue` has no fixed timeout any more: it waits as long as the daemon keeps reporting, and gives up
/// only after 90 s without a word (the old 120 s call cut slow continues that were still moving, and said "not
/// reachable" of a daemon that was working). A stand-in daemon on a private bus answers nothing, and reports
/// progress when told to; time is virtual.
@Suite(.serialized) struct ContinueQuietLimitTests {
    @Test func aSilentDaemonIsGivenUpOnNinetySecondsAfterItsLastReport() async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let daemon = try bus.connect()
        defer { daemon.close() }
        let app = try bus.connect()
        defer { app.close() }

        // ContinueActivity: never answered; the caller is remembered so that progress can be reported to it.
        let caller = Locked<BusName?>(nil)
        let (release, released) = AsyncStream<Void>.makeStream()
        var interface = ExportedInterface(HandoffBusAPI.interface)
        interface.method("ContinueActivity", in: "sa{sv}", out: "a{sv}") { call in
            caller.value = call.sender
            for await _ in release {}
            return [[String: Variant]().dbusValue]
        }
        try await daemon.export([interface], at: HandoffBusAPI.objectPath)
        _ = try await daemon.requestName(HandoffBusAPI.busName)
        defer { released.finish() }

        let clock = VirtualClock()
        let service = DBusHandoffService(connection: app, busDescription: "private bus", clock: clock)
        let reports = Locked<[ContinueProgress]>([])
        let done = Locked(false)
        let outcome = Task {
            defer { done.value = true }
            return try await service.continueActivity(ActivityID(rawValue: "stand-in"), pauseSource: false) { report in
                reports.withLock { $0.append(report) }
            }
        }
        func settle() async throws {
            // The call is out and the quiet limit's timer is asleep on the virtual clock.
            try await until { caller.value != nil && clock.sleeperCount > 0 }
        }
        try await settle()

        clock.advance(by: .seconds(80))
        try await until { clock.sleeperCount > 0 }
        let name = try #require(caller.value)
        try daemon.emitSignal(HandoffBusAPI.Signal.progress, "stand-in", ContinueProgress.Phase.transferring.rawValue,
                              UInt64(10), UInt64(100), path: HandoffBusAPI.objectPath,
                              interface: HandoffBusAPI.interface, destination: name)
        try await until { reports.value.count == 1 }

        // 160 s since the call, 80 s since the report: still waiting.
        clock.advance(by: .seconds(80))
        try await until { clock.sleeperCount > 0 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!done.value, "gave up 80 s after a report")
        #expect(reports.value.first?.receivedBytes == 10)

        // 91 s since the report: given up, saying the daemon may still finish.
        clock.advance(by: .seconds(11))
        let error = try await #require(throws: ServiceError.self) { try await outcome.value }
        #expect(error.code == .unreachable)
        #expect(error.message.contains("said nothing about the continue for 90 s"), "\(error.message)")
        #expect(error.message.contains("may still finish"))
    }

    /// Polls `condition` in real time (D-Bus traffic is real) for up to 10 s.
    private func until(_ condition: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<1_000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("a condition did not hold within 10 s")
        throw CancellationError()
    }
}
