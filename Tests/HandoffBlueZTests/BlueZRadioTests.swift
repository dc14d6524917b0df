import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffKit
import Testing

/// The radio itself on bluezoo: hci0 advertises and serves, hci1 scans and connects, each through its own
/// connection to the bus, as two processes would.
@Suite(.serialized) struct BlueZRadioTests {
    private func beacon(_ marker: UInt8) -> [UInt8] { testBeacon(marker) }

    @Test func aBeaconAdvertisedOnHci0IsScannedOnHci1AndUpdatesArrive() async throws {
        try await withRadios { source, target, zoo in
            let events = try await target.scan()
            try await source.advertise(beacon(0x10))
            let seen = try await first(events, "the first beacon") { $0.beacon == testBeacon(0x10) }
            #expect(seen.peer.rawValue == "/org/bluez/hci1/dev_00_AA_01_00_00_00")
            try await source.advertise(beacon(0x20))
            let updated = try await first(events, "the updated beacon") { $0.beacon == testBeacon(0x20) }
            #expect(updated.peer == seen.peer)
            await source.stopAdvertising()
            await source.stopAdvertising()            // idempotent
        }
    }

    @Test func scanningSurvivesTheAdapterBeingSwitchedOffAndOnWithoutSwitchingItOnItself() async throws {
        try await withRadios { source, target, zoo in
            let events = try await target.scan()
            try await source.advertise(beacon(0x30))
            _ = try await first(events, "the beacon before the power cycle") { $0.beacon == testBeacon(0x30) }
            // Somebody else (bluetoothctl, a settings panel) switches the scanning adapter off.
            let user = try await zoo.connect()
            let hci1 = try await user.adapter(named: "hci1")
            try await hci1.setPowered(false)
            try await Task.sleep(for: .seconds(2))
            let stillOff = await user.adapters().first { $0.name == "hci1" }?.powered
            #expect(stillOff == false, "the radio switched the adapter back on by itself")
            // A new scan while it is off is quiet, not an error.
            let quiet = try await target.scan()
            try await hci1.setPowered(true)
            try await source.advertise(beacon(0x40))
            _ = try await first(events, "the new beacon, after the adapter is on again") { $0.beacon == testBeacon(0x40) }
            _ = try await first(quiet, "the new beacon, on the scan started while off") { $0.beacon == testBeacon(0x40) }
        }
    }

    @Test func aBeaconOfTheWrongLengthIsRefused() async throws {
        try await withRadios { source, _, zoo in
            do {
                try await source.advertise([1, 2, 3])
                Issue.record("a 3-byte beacon was advertised")
            } catch let error as RadioError {
                #expect(error.kind == .failed)
                #expect(error.message.contains("24 bytes"), "\(error.message)")
            }
        }
    }

    @Test func anUnknownAdapterIsAClearError() async throws {
        try await withBluezoo { zoo in
            var options = BlueZRadioOptions()
            options.adapterTimeout = .milliseconds(300)
            let bluez = try await zoo.connect()
            do {
                _ = try await BlueZRadio(adapter: "hci7", bluez: bluez, options: options)
                Issue.record("a radio opened on a missing adapter")
            } catch let error as RadioError {
                #expect(error.kind == .failed)
                #expect(error.message.contains("hci7"), "\(error.message)")
            }
        }
    }

    @Test func writesNameTheCentralAndItsMTUAndNotificationsReachIt() async throws {
        try await withRadios { source, target, zoo in
            let service = try await source.openTransferService()
            do {
                _ = try await source.openTransferService()
                Issue.record("a second transfer service opened")
            } catch let error as RadioError {
                #expect(error.kind == .failed)
            }
            let events = try await target.scan()
            try await source.advertise(beacon(0x30))
            let peer = try await first(events, "the beacon").peer

            let link = try await target.connect(to: peer)
            #expect(link.peer == peer)
            #expect(link.mtu >= WireProtocol.minimumMTU)
            try await link.write([0x01, 0x02, 0x03])
            let write = try await first(service.writes, "the write")
            #expect(write.value == [0x01, 0x02, 0x03])
            #expect(write.central.rawValue == "/org/bluez/hci0/dev_00_AA_01_01_00_01")
            #expect(write.mtu == link.mtu)

            let value = [UInt8](repeating: 0xAB, count: WireProtocol.valueLength(forMTU: write.mtu))
            try await service.notify(value, to: write.central)
            let notified = try await first(link.notifications, "the notification")
            #expect(notified == value)

            do {
                try await service.notify(value + [0], to: write.central)
                Issue.record("a notification longer than MTU - 3 was sent")
            } catch let error as RadioError {
                #expect(error.kind == .valueTooLong)
            }
            do {
                try await link.write([UInt8](repeating: 0, count: 513))
                Issue.record("a 513-byte write was sent")
            } catch let error as RadioError {
                #expect(error.kind == .valueTooLong)
            }

            await link.disconnect()
            await link.disconnect()                   // idempotent
            for await _ in link.notifications {}      // finished by the disconnect
            // The source learns of the disconnection through its own connection's signals; give it a moment.
            var refusal: RadioError?
            for _ in 0..<100 where refusal == nil {
                do {
                    try await service.notify([1], to: write.central)
                    try await Task.sleep(for: .milliseconds(100))
                } catch let error as RadioError {
                    refusal = error
                }
            }
            #expect(refusal?.kind == .disconnected, "notifications still went to a disconnected central")
            await service.close()
            for await _ in service.writes {}          // finished by close
        }
    }

    @Test func connectingToAnUnknownPeerIsUnreachable() async throws {
        try await withRadios { _, target, zoo in
            for peer in ["/org/bluez/hci1/dev_00_AA_01_09_09_09", "00:AA:01:09:09:09", "/org/bluez/hci0/dev_00_AA_01_01_00_01",
                         "not an address"] {
                do {
                    _ = try await target.connect(to: PeerAddress(peer))
                    Issue.record("connected to \(peer)")
                } catch let error as RadioError {
                    #expect(error.kind == .unreachable, "\(peer): \(error)")
                }
            }
        }
    }

    @Test func waitingForAnUnknownPeerScansForItAndLeavesNoDiscoveryRunning() async throws {
        // A radio that does not scan (a receiver between continues) asked for a peer bluetoothd does not know: it
        // scans while it waits (the nudge, every 3 s), and must not leave the adapter discovering afterwards,
        // which would cost power until the daemon stops.
        try await withBluezoo { zoo in
            var options = BlueZRadioOptions()
            options.unknownPeerWait = .milliseconds(4500)
            let bluez = try await zoo.connect()
            let observer = try await zoo.connect()
            let radio = try await BlueZRadio(adapter: "hci1", bluez: bluez, options: options)
            let adapter = try await observer.waitForAdapter(named: "hci1")
            let discoveringBefore = try await adapter.properties().discovering
            #expect(!discoveringBefore)
            let sawDiscovery = Task {
                while !Task.isCancelled {
                    if (try? await adapter.properties().discovering) == true { return true }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return false
            }
            do {
                _ = try await radio.connect(to: PeerAddress("/org/bluez/hci1/dev_00_AA_01_09_09_09"))
                Issue.record("connected to a device nobody advertised")
            } catch let error as RadioError {
                #expect(error.kind == .unreachable)
            }
            sawDiscovery.cancel()
            let scanned = await sawDiscovery.value
            #expect(scanned, "the radio did not scan for the unknown peer while it waited")
            var discovering = true
            for _ in 0..<40 where discovering {
                discovering = try await adapter.properties().discovering
                if discovering { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(!discovering, "the wait for an unknown peer left the adapter discovering")
        }
    }
}

/// A 24-byte beacon-shaped value, different for each marker.
func testBeacon(_ marker: UInt8) -> [UInt8] {
    [WireProtocol.version] + (1..<WireProtocol.beaconLength).map { UInt8($0) ^ marker }
}
