import Testing

@testable import BlueZ
import BlueZTestSupport

/// bluetoothd keeps one discovery per connection and adapter, so the layer shares it between the scans on an
/// adapter (BlueZ+DiscoverySessions.swift). On bluezoo, what a user would notice: whether the adapter still
/// discovers (`Discovering`) after one of two scans stops, and after a stopped scan is asked to restart.
@Suite("One discovery per adapter, shared by its scans", .serialized, .timeLimit(.minutes(2)))
struct DiscoverySessionTests {
    @Test("stopping one of two scans leaves the other discovering; the last one stops it")
    func sharedUntilTheLastScanStops() async throws {
        try await Self.withPoweredHCI1 { bluez, hci1 in
            let first = try await hci1.scan(filter: DiscoveryFilter(transport: "le"))
            let second = try await hci1.scan(filter: DiscoveryFilter(transport: "le"))
            #expect(try await Self.settles(hci1, discovering: true))
            await first.stopAndWait()
            #expect(try await !Self.settles(hci1, discovering: false),
                    "one scan's StopDiscovery ended the discovery the other scan still needs")
            await second.stopAndWait()
            #expect(try await Self.settles(hci1, discovering: false))
        }
    }

    @Test("a stopped scan's restart starts nothing, and a later scan starts and stops normally")
    func aStoppedScanCannotRestart() async throws {
        try await Self.withPoweredHCI1 { bluez, hci1 in
            let stale = try await hci1.scan(filter: DiscoveryFilter(transport: "le"))
            #expect(try await Self.settles(hci1, discovering: true))
            await stale.stopAndWait()
            #expect(try await Self.settles(hci1, discovering: false))
            try await stale.restartDiscovery()
            #expect(try await !Self.settles(hci1, discovering: true),
                    "a scan nobody listens to any more started a discovery")
            let next = try await hci1.scan(filter: DiscoveryFilter(transport: "le"))
            try await next.restartDiscovery()
            #expect(try await Self.settles(hci1, discovering: true))
            try await stale.restartDiscovery()   // and the stale one cannot take it over or stop it
            await stale.stopAndWait()
            #expect(try await !Self.settles(hci1, discovering: false))
            await next.stopAndWait()
            #expect(try await Self.settles(hci1, discovering: false))
        }
    }

    @Test("steps on one adapter never interleave: many scans started, restarted and stopped at once end stopped")
    func concurrentStepsSettle() async throws {
        try await Self.withPoweredHCI1 { bluez, hci1 in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let scan = try await hci1.scan(filter: DiscoveryFilter(transport: "le"))
                        try await scan.restartDiscovery()
                        await scan.stopAndWait()
                    }
                }
                try await group.waitForAll()
            }
            #expect(await bluez.discoveries.isEmpty)
            #expect(try await Self.settles(hci1, discovering: false))
        }
    }

    /// bluezoo's hci1, switched on.
    static func withPoweredHCI1(_ body: (BlueZ, Adapter1) async throws -> Void) async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let hci1 = try await bluez.adapter(named: "hci1")
            try await hci1.setPowered(true)
            try await body(bluez, hci1)
        }
    }

    /// Whether `Discovering` reaches `value` within 2 s (bluezoo changes it a moment after the call returns).
    static func settles(_ adapter: Adapter1, discovering value: Bool) async throws -> Bool {
        for _ in 0..<40 {
            if try await adapter.properties().discovering == value { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }
}
