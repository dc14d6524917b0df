import BlueZ
import DBus
import Foundation
@testable import HandoffBlueZ
import HandoffKit
import Testing

/// bluetoothd tells of a device's data only when it changes, so the radio learns that an unchanged source is still
/// there only from the advertisement monitor's next `DeviceFound` (`.heardAgain`) or an RSSI change. It reports
/// such a repeat once when the engine asked (an activity set aside after a failed continue), and never otherwise.
@Suite(.serialized) struct RepeatedAdvertisementTests {
    @Test func aRepeatedBeaconIsReportedOnlyWhenAskedAndOnlyOnce() async throws {
        try await withRadios { source, target, zoo in
            let events = try await target.scan()
            try await source.advertise(testBeacon(0x50))
            let seen = try await first(events, "the beacon") { $0.beacon == testBeacon(0x50) }
            let device = try await target.bluez.device(at: #require(ObjectPath(rawValue: seen.peer.rawValue)))
                .properties()

            await target.received(.heardAgain(device))                 // nobody asked: not reported
            await target.received(.updated(device, changed: ["RSSI"]))  // nor is an RSSI change
            await target.reportNextAdvertisement(of: seen.peer)
            await target.received(.heardAgain(device))                 // asked: reported
            await target.received(.heardAgain(device))                 // once
            try await source.advertise(testBeacon(0x60))

            let next = try await first(events, "the repeat that was asked for")
            #expect(next == ScanEvent(peer: seen.peer, beacon: testBeacon(0x50), rssi: next.rssi))
            let after = try await first(events, "the new beacon")
            #expect(after.beacon == testBeacon(0x60), "a repeat was reported that nobody asked for")
        }
    }

    @Test func askingAfterAnRSSIChangeUnderADiscoveryReportsTheBeacon() async throws {
        try await withRadios(target: { $0.scanning = .discovery }) { source, target, zoo in
            let events = try await target.scan()
            try await source.advertise(testBeacon(0x70))
            let seen = try await first(events, "the beacon") { $0.beacon == testBeacon(0x70) }
            let device = try await target.bluez.device(at: #require(ObjectPath(rawValue: seen.peer.rawValue)))
                .properties()
            await target.reportNextAdvertisement(of: seen.peer)
            await target.received(.updated(device, changed: ["RSSI"]))
            let next = try await first(events, "the repeat that was asked for")
            #expect(next.beacon == testBeacon(0x70))
        }
    }

    @Test func aPeerOfAnotherAdapterIsNeverAwaited() async throws {
        try await withRadios { _, target, zoo in
            await target.reportNextAdvertisement(of: PeerAddress("/org/bluez/hci0/dev_00_AA_01_00_00_00"))
            await target.reportNextAdvertisement(of: PeerAddress("not a peer"))
            let awaited = await target.awaitedAdvertisements
            #expect(awaited.isEmpty, "\(awaited)")
        }
    }
}
