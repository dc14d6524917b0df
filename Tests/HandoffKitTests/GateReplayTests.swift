import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Issue 25, finding 4: a stranger with no keys replays what it recorded. Nothing it replays moves a device, lists
/// an activity again, moves or spoils a push, or delivers an item twice.
struct GateReplayTests {
    /// (a) The receiver's current presence beacon, re-advertised from the stranger's address: the next push still
    /// goes to the receiver.
    @Test func aReplayedCurrentBeaconDoesNotSendTheNextPushToTheReplayer() async throws {
        let ether = InMemoryEther()
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether)
        let beacon = try #require(await ether.currentAdvertisement(of: receiver.radio.address))
        await ether.inject(beacon: beacon, from: PeerAddress("sim:eve"))
        try await quiet(ether)
        try await senders[0].engine.push(OutgoingShare(
            metadata: ShareMetadata(kind: .text, name: "t.txt", mediaType: "text/plain"),
            content: .bytes(Array("still to the desktop".utf8))), to: receiver.store.identity.id)
        #expect(inbox.items().count == 1)
    }

    /// (b) An activity set aside after a failed continue is not listed again by a verbatim replay from elsewhere;
    /// it is when its own source is heard again.
    @Test func aReplayedBeaconDoesNotListASetAsideActivityAgain() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let beacon = try #require(await ether.currentAdvertisement(of: source.radio.address))
        await ether.setReachable(source.radio.address, false)
        #expect(await receiver.engine.continueActivity(remote).error?.code == .connectionUnavailable)
        await receiver.engine.setAside(remote)
        await ether.setReachable(source.radio.address, true)
        await ether.inject(beacon: beacon, from: PeerAddress("sim:eve"))
        try await quiet(ether)
        #expect(await receiver.engine.availableActivities().isEmpty, "a replay listed the activity again")
        let updates = await receiver.engine.availabilityUpdates()
        await ether.inject(beacon: beacon, from: source.radio.address)
        #expect(try await first(updates).peer == source.radio.address)
    }

    /// (c) A push stops halfway (the sender's writes stop reaching the receiver). A stranger replays its PUSH and
    /// writes garbage DATA: the partial stays, and the sender's retry resumes where it stopped and arrives intact.
    @Test func aReplayedPushNeitherMovesNorSpoilsALivePush() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether)
        let writes = Locked<[[UInt8]]>([])
        await ether.setWriteTap { value in writes.withLock { $0.append(value) } }
        var quietHalfway = LinkConditions()
        quietHalfway.loseWritesAfter = 60
        await ether.setConditions(quietHalfway)
        let blob = Gate25.pattern(30_000)
        let item = OutgoingShare(metadata: ShareMetadata(kind: .file, name: "c.bin", mediaType: "application/octet-stream"),
                                 content: .bytes(blob))
        let sender = senders[0].engine
        let receiverID = receiver.store.identity.id
        // The clock runs only once the receiver stored a record: "quiet" is 3 ms without radio traffic, and on a
        // busy machine the receiver can take longer than that to store what it was sent, so the sender's stall
        // timer fired first and its disconnect left the partial empty (a flake of the test, 1 run in 5 under load).
        let stored = { @Sendable () async -> Bool in
            let folder = try? FileManager.default.contentsOfDirectory(at: inbox.partialFolder, includingPropertiesForKeys: nil).first
            return folder.map { (ShareFiles.size(of: $0.appendingPathComponent("data")) ?? 0) > 0 } ?? false
        }
        let failed = try await onVirtualTime(clock, of: ether, step: sender.configuration.stallInterval, ready: stored) {
            do { try await sender.push(item, to: receiverID); return HandoffError.Code?.none } catch { return (error as? HandoffError)?.code }
        }
        #expect(failed == .remoteApplicationTimedOut)
        let held = try #require(try FileManager.default.contentsOfDirectory(at: inbox.partialFolder,
                                                                            includingPropertiesForKeys: nil).first)
        #expect((ShareFiles.size(of: held.appendingPathComponent("data")) ?? 0) > 0)

        await ether.setConditions(LinkConditions())
        await ether.setWriteTap(nil)
        let push = try #require(writes.withLock { $0.first { $0.count > 1 && $0[1] == 0x30 } })
        let id = try #require(TransferID(bytes: Array(push[2..<10])))
        let stranger = try await ether.makeRadio(address: "sim:eve").connect(to: receiver.radio.address)
        var answers = stranger.notifications.makeAsyncIterator()
        try await stranger.write(push)
        let answer = try #require(await answers.next())
        var offset = 0
        if answer[1] == 0xB0, case .accept(_, let at)? = try? ShareFrame.decode(answer) { offset = Int(at) }
        for start in stride(from: offset, to: offset + 4096 + 16, by: 200) {
            try await stranger.write(ShareFrame.data(transferID: id, offset: UInt32(start),
                                                     bytes: [UInt8](repeating: 0xEE, count: 200)).encoded())
        }
        try await Gate25.drain(stranger, &answers)
        await stranger.disconnect()
        #expect((ShareFiles.size(of: held.appendingPathComponent("data")) ?? 0) > 0, "the stranger's garbage dropped the partial")

        let firstOffset = Locked<Int?>(nil)
        try await sender.push(item, to: receiverID) { sent, _ in firstOffset.withLock { $0 = $0 ?? sent } }
        #expect((firstOffset.withLock { $0 } ?? 0) > 0, "the retry started over")
        let arrived = try #require(inbox.items().first)
        #expect([UInt8](try Data(contentsOf: inbox.dataURL(of: arrived.id))) == blob)
    }

    /// (d) An item was delivered and dropped, and the delivered ledger has forgotten it (as after 1,024 others). A
    /// stranger replays every frame the sender wrote: nothing is delivered again.
    @Test func aReplayedPushAfterTheLedgerForgotDeliversNothing() async throws {
        let ether = InMemoryEther()
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether)
        let writes = Locked<[[UInt8]]>([])
        await ether.setWriteTap { value in writes.withLock { $0.append(value) } }
        try await senders[0].engine.push(OutgoingShare(
            metadata: ShareMetadata(kind: .text, name: "once.txt", mediaType: "text/plain"),
            content: .bytes(Gate25.pattern(9_000))), to: receiver.store.identity.id)
        await ether.setWriteTap(nil)
        let delivered = try #require(inbox.items().first)
        try inbox.drop(delivered.id)
        try FileManager.default.removeItem(at: inbox.directory.appendingPathComponent("delivered"))

        let stranger = try await ether.makeRadio(address: "sim:eve").connect(to: receiver.radio.address)
        var answers = stranger.notifications.makeAsyncIterator()
        for value in writes.withLock({ $0 }) { try await stranger.write(value) }
        try await Gate25.drain(stranger, &answers)
        await stranger.disconnect()
        #expect(inbox.items().isEmpty, "a replay delivered the item again")
    }
}
