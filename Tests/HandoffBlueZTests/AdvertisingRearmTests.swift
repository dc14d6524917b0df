@testable import HandoffBlueZ
import BlueZ
import Foundation
import HandoffKit
import HandoffShared
import Testing

/// A peer that connects to us ends the advertising set it connected through, and Linux 6.1 enables it again only
/// when that connection ends: the radio hands its advertisement to bluetoothd again after each connection it did
/// not make itself, and only then (`BlueZRadio.watchConnections()`). On bluezoo: what is checked is the hand-over
/// (its journal line), since bluezoo has no advertising sets to end.
@Suite(.serialized) struct AdvertisingRearmTests {
    @Test func aPeerConnectingToUsHandsTheAdvertisementOverAgainAndOurOwnConnectsDoNot() async throws {
        try await withBluezoo { zoo in
            let lines = Locked<[String]>([])
            var options = BlueZRadioOptions()
            options.discoverable = true            // bluezoo reports discoverable advertisements only
            options.unknownPeerWait = .seconds(1)
            var sourceOptions = options
            sourceOptions.log = { line in lines.withLock { $0.append(line) } }
            let source = try await BlueZRadio(adapter: "hci0", bluez: try await zoo.connect(), options: sourceOptions)
            let target = try await BlueZRadio(adapter: "hci1", bluez: try await zoo.connect(), options: options)
            let handedOver = { lines.withLock { $0.filter { $0.contains("advertisement handed to bluetoothd again") } } }
            _ = try await source.openTransferService()
            _ = try await target.openTransferService()

            // The target connects to the source: the source hands its advertisement over again, once.
            let sourceEvents = try await target.scan()
            try await source.advertise(testBeacon(0x41))
            let sourcePeer = try await first(sourceEvents, "the source's beacon").peer
            let link = try await target.connect(to: sourcePeer)
            for _ in 0..<300 where handedOver().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            #expect(handedOver().count == 1, "\(lines.withLock { $0 })")
            await link.disconnect()

            // The source connects to the target: its own link, so nothing is handed over.
            let targetEvents = try await source.scan()
            try await target.advertise(testBeacon(0x42))
            let targetPeer = try await first(targetEvents, "the target's beacon").peer
            let before = handedOver().count
            let own = try await source.connect(to: targetPeer)
            try await Task.sleep(for: .milliseconds(800))   // past the hand-over's delay, room for a wrong one
            #expect(handedOver().count == before, "\(lines.withLock { $0 })")
            await own.disconnect()
            await source.close()
            await target.close()
        }
    }
}
