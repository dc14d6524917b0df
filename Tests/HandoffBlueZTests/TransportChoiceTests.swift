import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffKit
import Testing

/// How the radio chooses the path on a host whose kernel has no Bluetooth sockets (this test host; bluezoo
/// emulates BlueZ's D-Bus API only): the source cannot listen, so it publishes no PSM, and the receiver falls back
/// to GATT and says so, or, when told to use the channel only, refuses clearly. The channel itself is proven on
/// the real kernel in the VM tier (radio-l2cap-*).
@Suite(.serialized) struct TransportChoiceTests {
    @Test func withoutAPublishedPSMTheLinkFallsBackToGATTAndSaysWhy() async throws {
        try await withRadios(target: { $0.transport = .auto }) { source, target, zoo in
            let service = try await source.openTransferService()
            let events = try await target.scan()
            try await source.advertise(testBeacon(0x41))
            let peer = try await first(events, "the beacon").peer
            let link = try await target.connect(to: peer)
            #expect(link.transport.kind == .gatt)
            #expect(link.transport.fallback == .notPublished)
            #expect(link.maximumFrameLength == WireProtocol.valueLength(forMTU: link.mtu))
            #expect(link.setup.map(\.name) == ["connect", "services", "psm", "subscribe"])
            try await link.write([0x01, 0x02])
            let write = try await first(service.writes, "the write")
            #expect(write.transport == .gatt)
            #expect(write.maximumFrameLength == WireProtocol.valueLength(forMTU: write.mtu))
            await link.disconnect()
            await service.close()
        }
    }

    @Test func channelOnlyRefusesAPeerWithoutAChannel() async throws {
        try await withRadios(target: { $0.transport = .l2cap }) { source, target, zoo in
            let service = try await source.openTransferService()
            let events = try await target.scan()
            try await source.advertise(testBeacon(0x42))
            let peer = try await first(events, "the beacon").peer
            do {
                let link = try await target.connect(to: peer)
                Issue.record("connected over \(link.transport) although only the channel was allowed")
            } catch let error as RadioError {
                #expect(error.kind == .unreachable)
                #expect(error.message.contains("HANDOFF_TRANSPORT=l2cap"), "\(error.message)")
            }
            await service.close()
        }
    }

    @Test func theTransportComesFromTheEnvironmentAndAnUnknownOneIsRefused() throws {
        #expect(try BlueZRadioOptions.Transport.fromEnvironment([:]) == nil)
        #expect(try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "GATT"]) == .gatt)
        #expect(try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "l2cap"]) == .l2cap)
        #expect(throws: (any Error).self) {
            try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "wifi"])
        }
    }
}
