@testable import HandoffBlueZ
import BlueZ
import DBus
import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// A stranger the gate dropped is blocked in bluetoothd for a cooldown, then let in again; what a killed daemon left
/// blocked is lifted by the next one, and a block the user made is never touched (`KeptAwayDevices`). On bluezoo,
/// whose `Blocked` is a plain property (no kernel behind it), on virtual time.
@Suite(.serialized) struct KeptAwayDevicesTests {
    /// bluezoo with a device object on hci1 for hci0's advertisement (the stranger), and a record file of its own.
    private struct World {
        let bluez: BlueZ
        let adapter: Adapter1
        let stranger: ObjectPath
        let record: URL
        let clock = VirtualClock()
        let said = Locked<[String]>([])

        func keptAway() -> KeptAwayDevices {
            KeptAwayDevices(bluez: bluez, adapter: adapter, record: record, clock: clock,
                            log: { [said] line in said.withLock { $0.append(line) } })
        }

        func properties() async -> Device1.Properties? { try? await bluez.device(at: stranger).properties() }

        var recorded: String { (try? String(contentsOf: record, encoding: .utf8)) ?? "" }

        /// Lets the cooldown task run until `condition` holds (or a bounded number of turns passed).
        func settle(until condition: () async -> Bool) async {
            for _ in 0..<400 {
                if await condition() { return }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    private func withWorld(_ body: (World) async throws -> Void) async throws {
        try await withRadios { source, _, zoo in
            let bluez = try await zoo.connect()
            let adapter = try await bluez.waitForAdapter(named: "hci1")
            let scan = try await adapter.scan()
            try await source.advertise(testBeacon(0x61))
            var stranger: ObjectPath?
            for await event in scan {
                stranger = event.device.path
                break
            }
            await scan.stopAndWait()
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("kept-away-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await body(World(bluez: bluez, adapter: adapter, stranger: try #require(stranger),
                                 record: directory.appendingPathComponent("kept-away")))
        }
    }

    @Test func aDroppedStrangerIsBlockedForTheCooldownThenForgotten() async throws {
        try await withWorld { world in
            let keptAway = world.keptAway()
            await keptAway.keepAway(world.stranger, for: .seconds(30))
            #expect(await world.properties()?.blocked == true)
            #expect(world.recorded == "forget \(world.stranger.rawValue)\n", "recorded before the block, for a crash")
            #expect(keptAway.current == [world.stranger])

            // A second drop within the cooldown changes nothing and does not restart it.
            await keptAway.keepAway(world.stranger, for: .seconds(30))
            await world.settle { world.clock.sleeperCount == 1 }
            world.clock.advance(by: .seconds(29))
            #expect(await world.properties()?.blocked == true)

            world.clock.advance(by: .seconds(1))
            await world.settle { await world.properties() == nil }
            #expect(await world.properties() == nil, "a stranger bluetoothd would not have kept is forgotten")
            #expect(world.recorded.isEmpty)
            #expect(keptAway.current.isEmpty)
        }
    }

    @Test func aTrustedDeviceIsOnlyUnblocked() async throws {
        try await withWorld { world in
            try await world.bluez.device(at: world.stranger).setTrusted(true)
            await world.settle { await world.properties()?.trusted == true }   // the mirror has the change
            let keptAway = world.keptAway()
            await keptAway.keepAway(world.stranger, for: .seconds(5))
            #expect(world.recorded == "keep \(world.stranger.rawValue)\n")
            await world.settle { world.clock.sleeperCount == 1 }
            world.clock.advance(by: .seconds(5))
            await world.settle { await world.properties()?.blocked == false }
            let properties = await world.properties()
            #expect(properties?.blocked == false)
            #expect(properties?.trusted == true, "the device bluetoothd keeps is kept")
        }
    }

    @Test func whatAKilledDaemonLeftBlockedIsLiftedByTheNextOne() async throws {
        try await withWorld { world in
            // The first daemon blocks, then dies without lifting (its task never runs: the clock never moves).
            await world.keptAway().keepAway(world.stranger, for: .seconds(30))
            #expect(await world.properties()?.blocked == true)

            // Another adapter's entry stays for that adapter's service.
            let other = "forget /org/bluez/hci7/dev_00_11_22_33_44_55\n"
            try Data((world.recorded + other).utf8).write(to: world.record)

            let next = world.keptAway()
            await next.liftRecorded()
            #expect(await world.properties() == nil)
            #expect(world.recorded == other)
            #expect(world.said.withLock { $0 }.contains { $0.contains("left by an earlier daemon") })
        }
    }

    @Test func theUsersOwnBlockIsNeverLifted() async throws {
        try await withWorld { world in
            try await world.bluez.device(at: world.stranger).setBlocked(true)
            await world.settle { await world.properties()?.blocked == true }
            let keptAway = world.keptAway()
            await keptAway.keepAway(world.stranger, for: .seconds(5))
            #expect(keptAway.current.isEmpty)
            #expect(world.recorded.isEmpty)
            world.clock.advance(by: .seconds(5))
            await keptAway.liftAll()
            #expect(await world.properties()?.blocked == true)
        }
    }

    @Test func closingTheServiceLiftsEveryBlockAtOnce() async throws {
        try await withWorld { world in
            let keptAway = world.keptAway()
            await keptAway.keepAway(world.stranger, for: .seconds(600))
            await keptAway.liftAll()
            #expect(await world.properties() == nil)
            #expect(world.recorded.isEmpty)
        }
    }
}
