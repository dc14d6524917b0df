@testable import HandoffBlueZ
import BlueZ
import DBus
import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// A stranger the gate dropped is disconnected, and disconnected again each time it connects until its cooldown
/// ends; then it may stay (`KeptAwayDevices`). On bluezoo, on virtual time: the kept-away device is hci0's as hci1
/// sees it, connected from hci1 (bluezoo connects either way round; what matters is bluetoothd's `Connected`).
@Suite(.serialized) struct KeptAwayDevicesTests {
    private struct World {
        let bluez: BlueZ
        let adapter: Adapter1
        let stranger: ObjectPath
        let clock = VirtualClock()
        let said = Locked<[String]>([])

        func keptAway() async -> KeptAwayDevices {
            await KeptAwayDevices(bluez: bluez, adapter: adapter, clock: clock,
                                  log: { [said] line in said.withLock { $0.append(line) } })
        }

        func connected() async -> Bool { (try? await bluez.device(at: stranger).properties())?.connected == true }

        /// Waits (bounded) until `condition` holds.
        func settle(until condition: () async -> Bool) async {
            for _ in 0..<500 {
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
            try await body(World(bluez: bluez, adapter: adapter, stranger: try #require(stranger)))
        }
    }

    @Test func aDroppedStrangerIsDisconnectedAgainUntilTheCooldownEndsThenMayStay() async throws {
        try await withWorld { world in
            let keptAway = await world.keptAway()
            defer { keptAway.close() }
            let device = await world.bluez.device(at: world.stranger)
            try await device.connect()
            await world.settle { await world.connected() }
            #expect(await world.connected())

            await keptAway.keepAway(world.stranger, for: .seconds(30))
            await world.settle { await !world.connected() }
            #expect(await !world.connected(), "dropped at once")
            #expect(keptAway.isKeptAway(world.stranger))

            // It comes back during the cooldown: disconnected again, with a line for the journal.
            try? await device.connect()
            await world.settle { world.said.withLock { $0 }.contains { $0.contains("disconnecting it again") } }
            await world.settle { await !world.connected() }
            #expect(await !world.connected(), "a kept-away device stayed connected")
            #expect(world.said.withLock { $0 }.contains { $0.contains("disconnecting it again") })

            // After the cooldown it may connect and stay.
            world.clock.advance(by: .seconds(30))
            #expect(!keptAway.isKeptAway(world.stranger))
            let before = world.said.withLock { $0.count }
            try? await device.connect()
            await world.settle { await world.connected() }
            try await Task.sleep(for: .milliseconds(300))    // room for a wrong disconnection to show
            #expect(await world.connected(), "the device was kept away past its cooldown")
            #expect(world.said.withLock { $0.count } == before)
        }
    }

    @Test func anotherDeviceIsNeverTouched() async throws {
        try await withWorld { world in
            let keptAway = await world.keptAway()
            defer { keptAway.close() }
            await keptAway.keepAway(ObjectPath(rawValue: world.adapter.path.rawValue + "/dev_00_11_22_33_44_55")!,
                                    for: .seconds(30))
            try await world.bluez.device(at: world.stranger).connect()
            await world.settle { await world.connected() }
            try await Task.sleep(for: .milliseconds(300))
            #expect(await world.connected())
            #expect(!keptAway.isKeptAway(world.stranger))
        }
    }
}
