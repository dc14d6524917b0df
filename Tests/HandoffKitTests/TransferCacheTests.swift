import Foundation
@testable import HandoffKit
import Testing

/// The source's transfers kept for resumption: what a repeated REQUEST, a FETCH and a DONE find.
@Suite struct TransferCacheTests {
    let keys: GroupKeys
    let source = UUID()

    init() throws {
        keys = GroupKeys(try TrustGroup.generate())
    }

    func transfer(_ payload: Int = 300) -> CachedTransfer {
        let (header, stream) = TransferSealer.seal(activityType: "org.handoff.note", payload: Data(count: payload),
                                                   sequence: 1, recordSize: 256, keys: keys, source: source)
        return CachedTransfer(activity: UserActivity(activityType: "org.handoff.note"), header: header, stream: stream,
                              sealer: TransferSealer(header: header, keys: keys, source: source))
    }

    @Test func aRepeatedRequestFindsTheTransferMadeForIt() {
        var cache = TransferCache(capacity: 4)
        let nonce = Nonce.random()
        #expect(cache.answering(nonce) == nil)
        let made = transfer()
        cache.keep(made, answering: nonce)
        #expect(cache.answering(nonce)?.header == made.header)
        #expect(cache.answering(Nonce.random()) == nil)
    }

    @Test func theOldestBeyondCapacityIsDroppedWithItsRequest() {
        var cache = TransferCache(capacity: 2)
        let nonces = (0..<3).map { _ in Nonce.random() }
        let made = nonces.map { nonce in
            let one = transfer()
            cache.keep(one, answering: nonce)
            return one
        }
        #expect(cache.answering(nonces[0]) == nil)
        #expect(cache.fetching(made[0].header.transferID, upTo: 1) == nil)
        #expect(cache.answering(nonces[1])?.header == made[1].header)
        #expect(cache.answering(nonces[2])?.header == made[2].header)
    }

    @Test func aTransferStillBeingFetchedOutlivesNewerOnesNoOneUses() {
        var cache = TransferCache(capacity: 2)
        let nonces = (0..<3).map { _ in Nonce.random() }
        let first = transfer(), second = transfer(), third = transfer()
        cache.keep(first, answering: nonces[0])
        cache.keep(second, answering: nonces[1])
        #expect(cache.fetching(first.header.transferID, upTo: 1) != nil, "its receiver fetches on")
        cache.keep(third, answering: nonces[2])
        #expect(cache.fetching(first.header.transferID, upTo: 1) != nil, "the one in use is kept")
        #expect(cache.answering(nonces[1]) == nil, "the least recently used is dropped")
        #expect(cache.answering(nonces[2])?.header == third.header)
    }

    @Test func aFetchPastTheStreamFindsNothing() {
        var cache = TransferCache(capacity: 4)
        let made = transfer()
        cache.keep(made, answering: Nonce.random())
        let id = made.header.transferID
        #expect(cache.fetching(id, upTo: made.stream.count)?.header == made.header)
        #expect(cache.fetching(id, upTo: made.stream.count + 1) == nil)
        #expect(cache.fetching(TransferID.random(), upTo: 1) == nil)
    }

    @Test func theFirstValidDoneEndsTheTransferAndAReplayFindsNothing() {
        var cache = TransferCache(capacity: 4)
        let made = transfer()
        let nonce = Nonce.random()
        cache.keep(made, answering: nonce)
        let id = made.header.transferID
        #expect(cache.finish(id, mac: [UInt8](repeating: 0, count: TransferFrame.macLength)) == nil)
        #expect(cache.finish(id, mac: made.sealer.doneMAC())?.header == made.header)
        #expect(cache.finish(id, mac: made.sealer.doneMAC()) == nil)
        #expect(cache.answering(nonce) == nil)
        #expect(cache.fetching(id, upTo: 1) == nil)
    }

    @Test func aNewGroupKeyForgetsEverything() {
        var cache = TransferCache(capacity: 0)
        #expect(cache.capacity == 1)
        let made = transfer()
        let nonce = Nonce.random()
        cache.keep(made, answering: nonce)
        cache.removeAll()
        #expect(cache.answering(nonce) == nil)
        #expect(cache.capacity == 1)
    }
}
