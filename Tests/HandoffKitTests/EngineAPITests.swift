import Foundation
import HandoffKit
import HandoffTesting
import XCTest

/// The smaller engine, trust and radio-type APIs.
final class EngineAPITests: XCTestCase {
    func testForgetRemovesAnAvailabilityAndStopEndsTheStreams() async throws {
        let (source, receiver, _) = try await makePair()
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        var listed = await receiver.engine.availableActivities()
        XCTAssertEqual(listed.map(\.id), [source.store.identity.id])
        await receiver.engine.forget(remote)
        listed = await receiver.engine.availableActivities()
        XCTAssertTrue(listed.isEmpty)
        let updates = await receiver.engine.availabilityUpdates()
        await receiver.engine.stop()
        var iterator = updates.makeAsyncIterator()
        let next = await iterator.next()
        XCTAssertNil(next, "the availability stream outlived the engine")
    }

    func testSetDelegateRoutesFailuresToTheNewDelegate() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let replacement = RecordingContinuationDelegate()
        await receiver.engine.setDelegate(replacement)
        await ether.setReachable(source.radio.address, false)
        _ = await receiver.engine.continueActivity(remote)
        XCTAssertEqual(replacement.failures.map(\.error.code), [.connectionUnavailable])
        XCTAssertTrue(receiver.delegate.failures.isEmpty)
    }

    func testTrustStoreLookupAndRename() throws {
        var store = try HandoffFixtures.pairedStores(["a", "b"])[0]
        let other = try XCTUnwrap(store.devices.first)
        XCTAssertEqual(store.device(other.id)?.name, "b")
        XCTAssertNil(store.device(UUID()))
        store.rename("a2")
        XCTAssertEqual(store.identity.name, "a2")
        XCTAssertNoThrow(try store.validate())
    }

    func testRadioValueTypesDescribeThemselves() {
        XCTAssertEqual(PeerAddress("AA:BB").description, "AA:BB")
        XCTAssertEqual(RadioError(.disconnected, "gone").description, "radio: gone")
        XCTAssertEqual(WireProtocol.valueLength(forMTU: 23), 20)
        XCTAssertEqual(WireProtocol.valueLength(forMTU: 517), 512)
        XCTAssertEqual(WireProtocol.valueLength(forMTU: 1000), 512, "no value may exceed 512 bytes")
        XCTAssertEqual(ScanEvent(peer: PeerAddress("x"), beacon: [1]).rssi, nil)
    }
}
