import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffKit
import XCTest

/// How the radio chooses the path on a host whose kernel has no Bluetooth sockets (this test host; bluezoo
/// emulates BlueZ's D-Bus API only): the source cannot listen, so it publishes no PSM, and the receiver falls back
/// to GATT and says so, or, when told to use the channel only, refuses clearly. The channel itself is proven on
/// the real kernel in the VM tier (radio-l2cap-*).
final class TransportChoiceTests: BluezooTestCase {
    private func radios(target transport: BlueZRadioOptions.Transport) async throws
        -> (source: BlueZRadio, target: BlueZRadio) {
        try await radios { $0.transport = transport }
    }

    func testWithoutAPublishedPSMTheLinkFallsBackToGATTAndSaysWhy() async throws {
        let (source, target) = try await radios(target: .auto)
        let service = try await source.openTransferService()
        let events = try await target.scan()
        try await source.advertise(testBeacon(0x41))
        let peer = try await first(events, "the beacon").peer
        let link = try await target.connect(to: peer)
        XCTAssertEqual(link.transport.kind, .gatt)
        XCTAssertEqual(link.transport.fallback, .notPublished)
        XCTAssertEqual(link.maximumFrameLength, WireProtocol.valueLength(forMTU: link.mtu))
        XCTAssertEqual(link.setup.map(\.name), ["connect", "services", "psm", "subscribe"])
        try await link.write([0x01, 0x02])
        let write = try await first(service.writes, "the write")
        XCTAssertEqual(write.transport, .gatt)
        XCTAssertEqual(write.maximumFrameLength, WireProtocol.valueLength(forMTU: write.mtu))
        await link.disconnect()
        await service.close()
    }

    func testChannelOnlyRefusesAPeerWithoutAChannel() async throws {
        let (source, target) = try await radios(target: .l2cap)
        let service = try await source.openTransferService()
        let events = try await target.scan()
        try await source.advertise(testBeacon(0x42))
        let peer = try await first(events, "the beacon").peer
        do {
            let link = try await target.connect(to: peer)
            XCTFail("connected over \(link.transport) although only the channel was allowed")
        } catch let error as RadioError {
            XCTAssertEqual(error.kind, .unreachable)
            XCTAssertTrue(error.message.contains("HANDOFF_TRANSPORT=l2cap"), error.message)
        }
        await service.close()
    }

    func testTheTransportComesFromTheEnvironmentAndAnUnknownOneIsRefused() throws {
        XCTAssertNil(try BlueZRadioOptions.Transport.fromEnvironment([:]))
        XCTAssertEqual(try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "GATT"]), .gatt)
        XCTAssertEqual(try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "l2cap"]), .l2cap)
        XCTAssertThrowsError(try BlueZRadioOptions.Transport.fromEnvironment(["HANDOFF_TRANSPORT": "wifi"]))
    }
}
