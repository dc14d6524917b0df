import Foundation
import HandoffKit
import HandoffTesting
import Testing

/// The smaller engine, trust and radio-type APIs.
@Suite struct EngineAPITests {
    @Test func forgetRemovesAnAvailabilityAndStopEndsTheStreams() async throws {
        let (source, receiver, _) = try await makePair()
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        var listed = await receiver.engine.availableActivities()
        #expect(listed.map(\.id) == [source.store.identity.id])
        await receiver.engine.forget(remote)
        listed = await receiver.engine.availableActivities()
        #expect(listed.isEmpty)
        let updates = await receiver.engine.availabilityUpdates()
        await receiver.engine.stop()
        var iterator = updates.makeAsyncIterator()
        let next = await iterator.next()
        #expect(next == nil, "the availability stream outlived the engine")
    }

    @Test func setDelegateRoutesFailuresToTheNewDelegate() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let replacement = RecordingContinuationDelegate()
        await receiver.engine.setDelegate(replacement)
        await ether.setReachable(source.radio.address, false)
        _ = await receiver.engine.continueActivity(remote)
        #expect(replacement.failures.map(\.error.code) == [.connectionUnavailable])
        #expect(receiver.delegate.failures.isEmpty)
    }

    @Test func trustStoreLookupAndRename() throws {
        var store = try HandoffFixtures.pairedStores(["a", "b"])[0]
        let other = try #require(store.devices.first)
        #expect(store.device(other.id)?.name == "b")
        #expect(store.device(UUID()) == nil)
        store.rename("a2")
        #expect(store.identity.name == "a2")
        try store.validate()
    }

    @Test func radioValueTypesDescribeThemselves() {
        #expect(PeerAddress("AA:BB").description == "AA:BB")
        #expect(RadioError(.disconnected, "gone").description == "radio: gone")
        #expect(WireProtocol.valueLength(forMTU: 23) == 20)
        #expect(WireProtocol.valueLength(forMTU: 517) == 512)
        #expect(WireProtocol.valueLength(forMTU: 1000) == 512, "no value may exceed 512 bytes")
        #expect(ScanEvent(peer: PeerAddress("x"), beacon: [1]).rssi == nil)
    }
}
