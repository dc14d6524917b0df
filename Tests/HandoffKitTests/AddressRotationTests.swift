import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// A device under LE privacy rotates its address on its own (BlueZ's RPA timeout) and re-seals the same sequence
/// there: a beacon cannot tell that from a stranger's replay, so neither moves the device; a connection can, and the
/// address that completes an authenticated exchange becomes the device's (Docs/protocol.md, "The gate", row 2).
struct AddressRotationTests {
    /// The source moved to a new address (the old one is gone) with the same sequence: the continue follows it, and
    /// the next continue goes straight there.
    @Test func aContinueFollowsASourceThatRotatedItsAddress() async throws {
        let (source, receiver, ether) = try await makePair()
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let rotated = PeerAddress("sim:mac-rpa2")
        await ether.rotateAddress(of: source.radio.address, to: rotated)
        try await quiet(ether)
        #expect(await receiver.engine.availableActivities().map(\.peer) == [source.radio.address],
                "a beacon alone moved the device")

        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.activity?.activityType == noteType, "\(String(describing: outcome.error))")
        #expect(await ether.dialed == [source.radio.address, rotated])

        let again = await receiver.engine.continueActivity(remote)
        #expect(again.activity?.activityType == noteType)
        #expect(await ether.dialed == [source.radio.address, rotated, rotated],
                "the next continue tried the old address")
    }

    /// A stranger replays the current beacon from its own address while the source keeps its own: the listing does
    /// not move, and the continue goes to the source and nowhere else. When the source cannot be reached, the
    /// stranger may be tried, but nothing moves to it: once the source is back, it is the source that is asked.
    @Test func aReplayedBeaconFromAStrangerMovesNothing() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let (source, receiver, _) = try await makePair(ether: ether)
        let stranger = try await HandoffFixtures.devices(["eve"], on: ether, declaredTypes: [noteType])[0]
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let beacon = try #require(await ether.currentAdvertisement(of: source.radio.address))
        await ether.inject(beacon: beacon, from: stranger.radio.address)
        try await quiet(ether)
        #expect(await receiver.engine.availableActivities().map(\.peer) == [source.radio.address])

        #expect(await receiver.engine.continueActivity(remote).activity != nil)
        #expect(await ether.dialed == [source.radio.address], "the stranger was contacted")

        await ether.setReachable(source.radio.address, false)
        let step = receiver.engine.configuration.stallInterval
        let failed = try await onVirtualTime(clock, of: ether, step: step) {
            await receiver.engine.continueActivity(remote)
        }
        #expect(failed.error?.code == .connectionUnavailable, "the stranger's refusal was taken for the source's")

        await ether.setReachable(source.radio.address, true)
        let before = await ether.dialed.count
        #expect(await receiver.engine.continueActivity(remote).activity != nil)
        #expect(Array(await ether.dialed.dropFirst(before)) == [source.radio.address])
        _ = stranger
    }

    /// The source rotated, and a stranger replays the same beacon from its own address after that (so it is the
    /// newest candidate, tried first): the stranger cannot answer the transfer, the source's new address can and
    /// becomes the device's; the stranger's never does.
    @Test func aRotationAndAReplayTogetherFindTheSourceAndNeverTheStranger() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let (source, receiver, _) = try await makePair(ether: ether)
        let stranger = try await HandoffFixtures.devices(["eve"], on: ether, declaredTypes: [noteType])[0]
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let beacon = try #require(await ether.currentAdvertisement(of: source.radio.address))
        let rotated = PeerAddress("sim:mac-rpa2")
        await ether.rotateAddress(of: source.radio.address, to: rotated)
        await ether.inject(beacon: beacon, from: stranger.radio.address)
        try await quiet(ether)

        let step = receiver.engine.configuration.stallInterval
        let outcome = try await onVirtualTime(clock, of: ether, step: step) {
            await receiver.engine.continueActivity(remote)
        }
        #expect(outcome.activity?.activityType == noteType, "\(String(describing: outcome.error))")
        #expect(await ether.dialed == [source.radio.address, stranger.radio.address, rotated])

        let before = await ether.dialed.count
        let again = try await onVirtualTime(clock, of: ether, step: step) {
            await receiver.engine.continueActivity(remote)
        }
        #expect(again.activity != nil)
        #expect(Array(await ether.dialed.dropFirst(before)) == [rotated], "the stranger became the device's address")
    }

    /// The receiver of a push rotated its address (its presence beacon, same sequence, now comes from elsewhere):
    /// the push is delivered there, and the next push goes straight there.
    @Test func aPushFollowsAReceiverThatRotatedItsAddress() async throws {
        let ether = InMemoryEther()
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether)
        let rotated = PeerAddress("sim:desktop-rpa2")
        await ether.rotateAddress(of: receiver.radio.address, to: rotated)
        try await quiet(ether)
        let text = OutgoingShare(metadata: ShareMetadata(kind: .text, name: "r.txt", mediaType: "text/plain"),
                                 content: .bytes(Array("after the rotation".utf8)))
        try await senders[0].engine.push(text, to: receiver.store.identity.id)
        #expect(inbox.items().count == 1)
        #expect(await ether.dialed == [receiver.radio.address, rotated])

        try await senders[0].engine.push(OutgoingShare(
            metadata: ShareMetadata(kind: .text, name: "s.txt", mediaType: "text/plain"),
            content: .bytes(Array("straight there".utf8))), to: receiver.store.identity.id)
        #expect(inbox.items().count == 2)
        #expect(await ether.dialed == [receiver.radio.address, rotated, rotated])
    }
}
