import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffKit
import XCTest

/// The radio itself on bluezoo: hci0 advertises and serves, hci1 scans and connects, each through its own
/// connection to the bus, as two processes would.
final class BlueZRadioTests: BluezooTestCase {
    private func beacon(_ marker: UInt8) -> [UInt8] { testBeacon(marker) }

    func testABeaconAdvertisedOnHci0IsScannedOnHci1AndUpdatesArrive() async throws {
        let (source, target) = try await radios()
        let events = try await target.scan()
        try await source.advertise(beacon(0x10))
        let seen = try await first(events, "the first beacon") { $0.beacon == testBeacon(0x10) }
        XCTAssertEqual(seen.peer.rawValue, "/org/bluez/hci1/dev_00_AA_01_00_00_00")
        try await source.advertise(beacon(0x20))
        let updated = try await first(events, "the updated beacon") { $0.beacon == testBeacon(0x20) }
        XCTAssertEqual(updated.peer, seen.peer)
        await source.stopAdvertising()
        await source.stopAdvertising()            // idempotent
    }

    func testScanningSurvivesTheAdapterBeingSwitchedOffAndOnWithoutSwitchingItOnItself() async throws {
        let (source, target) = try await radios()
        let events = try await target.scan()
        try await source.advertise(beacon(0x30))
        _ = try await first(events, "the beacon before the power cycle") { $0.beacon == testBeacon(0x30) }
        // Somebody else (bluetoothctl, a settings panel) switches the scanning adapter off.
        let user = try await XCTUnwrap(zoo).connect()
        let hci1 = try await user.adapter(named: "hci1")
        try await hci1.setPowered(false)
        try await Task.sleep(for: .seconds(2))
        let stillOff = await user.adapters().first { $0.name == "hci1" }?.powered
        XCTAssertEqual(stillOff, false, "the radio switched the adapter back on by itself")
        // A new scan while it is off is quiet, not an error.
        let quiet = try await target.scan()
        try await hci1.setPowered(true)
        try await source.advertise(beacon(0x40))
        _ = try await first(events, "the new beacon, after the adapter is on again") { $0.beacon == testBeacon(0x40) }
        _ = try await first(quiet, "the new beacon, on the scan started while off") { $0.beacon == testBeacon(0x40) }
    }

    func testABeaconOfTheWrongLengthIsRefused() async throws {
        let (source, _) = try await radios()
        do {
            try await source.advertise([1, 2, 3])
            XCTFail("a 3-byte beacon was advertised")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .failed)
            XCTAssertTrue(error.message.contains("24 bytes"), error.message)
        }
    }

    func testAnUnknownAdapterIsAClearError() async throws {
        let zoo = try startBluezoo()
        var options = BlueZRadioOptions()
        options.adapterTimeout = .milliseconds(300)
        let bluez = try await zoo.connect()
        do {
            _ = try await BlueZRadio(adapter: "hci7", bluez: bluez, options: options)
            XCTFail("a radio opened on a missing adapter")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .failed)
            XCTAssertTrue(error.message.contains("hci7"), error.message)
        }
    }

    func testWritesNameTheCentralAndItsMTUAndNotificationsReachIt() async throws {
        let (source, target) = try await radios()
        let service = try await source.openTransferService()
        do {
            _ = try await source.openTransferService()
            XCTFail("a second transfer service opened")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .failed)
        }
        let events = try await target.scan()
        try await source.advertise(beacon(0x30))
        let peer = try await first(events, "the beacon").peer

        let link = try await target.connect(to: peer)
        XCTAssertEqual(link.peer, peer)
        XCTAssertGreaterThanOrEqual(link.mtu, WireProtocol.minimumMTU)
        try await link.write([0x01, 0x02, 0x03])
        let write = try await first(service.writes, "the write")
        XCTAssertEqual(write.value, [0x01, 0x02, 0x03])
        XCTAssertEqual(write.central.rawValue, "/org/bluez/hci0/dev_00_AA_01_01_00_01")
        XCTAssertEqual(write.mtu, link.mtu)

        let value = [UInt8](repeating: 0xAB, count: WireProtocol.valueLength(forMTU: write.mtu))
        try await service.notify(value, to: write.central)
        let notified = try await first(link.notifications, "the notification")
        XCTAssertEqual(notified, value)

        do {
            try await service.notify(value + [0], to: write.central)
            XCTFail("a notification longer than MTU - 3 was sent")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .valueTooLong)
        }
        do {
            try await link.write([UInt8](repeating: 0, count: 513))
            XCTFail("a 513-byte write was sent")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .valueTooLong)
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
        XCTAssertEqual(refusal?.kind, .disconnected, "notifications still went to a disconnected central")
        await service.close()
        for await _ in service.writes {}          // finished by close
    }

    func testConnectingToAnUnknownPeerIsUnreachable() async throws {
        let (_, target) = try await radios()
        for peer in ["/org/bluez/hci1/dev_00_AA_01_09_09_09", "00:AA:01:09:09:09", "/org/bluez/hci0/dev_00_AA_01_01_00_01",
                     "not an address"] {
            do {
                _ = try await target.connect(to: PeerAddress(peer))
                XCTFail("connected to \(peer)")
            } catch let error as RadioError {
                XCTAssertEqual(error.kind, .unreachable, "\(peer): \(error)")
            }
        }
    }

    func testWaitingForAnUnknownPeerScansForItAndLeavesNoDiscoveryRunning() async throws {
        // A radio that does not scan (a receiver between continues) asked for a peer bluetoothd does not know: it
        // scans while it waits (the nudge, every 3 s), and must not leave the adapter discovering afterwards,
        // which would cost power until the daemon stops.
        let zoo = try startBluezoo()
        var options = BlueZRadioOptions()
        options.unknownPeerWait = .milliseconds(4500)
        let bluez = try await zoo.connect()
        let observer = try await zoo.connect()
        let radio = try await BlueZRadio(adapter: "hci1", bluez: bluez, options: options)
        let adapter = try await observer.waitForAdapter(named: "hci1")
        let discoveringBefore = try await adapter.properties().discovering
        XCTAssertFalse(discoveringBefore)
        let sawDiscovery = Task {
            while !Task.isCancelled {
                if (try? await adapter.properties().discovering) == true { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return false
        }
        do {
            _ = try await radio.connect(to: PeerAddress("/org/bluez/hci1/dev_00_AA_01_09_09_09"))
            XCTFail("connected to a device nobody advertised")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .unreachable)
        }
        sawDiscovery.cancel()
        let scanned = await sawDiscovery.value
        XCTAssertTrue(scanned, "the radio did not scan for the unknown peer while it waited")
        var discovering = true
        for _ in 0..<40 where discovering {
            discovering = try await adapter.properties().discovering
            if discovering { try await Task.sleep(for: .milliseconds(50)) }
        }
        XCTAssertFalse(discovering, "the wait for an unknown peer left the adapter discovering")
    }
}

/// A 24-byte beacon-shaped value, different for each marker.
func testBeacon(_ marker: UInt8) -> [UInt8] {
    [WireProtocol.version] + (1..<WireProtocol.beaconLength).map { UInt8($0) ^ marker }
}
