import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Issue 25, finding 5: a revoked device cannot overturn its revocation, and strangers cannot wipe a rekey that is
/// being assembled.
struct GateRekeyTests {
    /// C, revoked by A, reaches B first with the highest epoch there is and "A is revoked". B keeps A, refuses
    /// C's message, and still takes A's real rekey afterwards.
    @Test func aRevokedDeviceCannotRevokeItsRevokerWithAFarEpoch() throws {
        let stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        var (a, b, c) = (stores[0], stores[1], stores[2])
        // C forges from what it still holds: its pairwise key with B, and any epoch it likes.
        var evil = TrustStore(identity: c.identity, group: TrustGroup(key: c.group.key, epoch: .max - 1),
                              devices: c.devices)
        let forged = try #require(try evil.revoke(a.identity.id).first { $0.to == b.identity.id })
        #expect(forged.epoch == .max)
        #expect(throws: HandoffError.self) { try b.applyRekey(forged) }
        #expect(b.device(a.identity.id) != nil, "B dropped A on the word of a revoked device")
        // A's real revocation of C still lands.
        let real = try #require(try a.revoke(c.identity.id).first { $0.to == b.identity.id })
        try b.applyRekey(real)
        #expect(b.device(a.identity.id) != nil)
        #expect(b.device(c.identity.id) == nil)
        #expect(b.group == a.group)
    }

    /// A rekey that skips an epoch, names its own sender or its recipient as revoked is refused; the epoch never
    /// wraps.
    @Test func aRekeyMustFollowTheEpochAndRevokeNeitherEnd() throws {
        let stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        let (a, b) = (stores[0], stores[1])
        var skipping = TrustStore(identity: a.identity, group: TrustGroup(key: a.group.key, epoch: a.group.epoch + 1),
                                  devices: a.devices)
        let skip = try #require(try skipping.revoke(stores[2].identity.id).first { $0.to == b.identity.id })
        var target = b
        #expect(throws: HandoffError.self) { try target.applyRekey(skip) }
        #expect(target == b)
        var last = TrustStore(identity: a.identity, group: TrustGroup(key: a.group.key, epoch: .max), devices: a.devices)
        #expect(throws: HandoffError.self) { _ = try last.revoke(stores[2].identity.id) }
    }

    /// A's rekey to B is being assembled from two fragments when eight strangers start messages of their own: A's
    /// still completes, and B adopts the new key.
    @Test func eightCentralsCannotWipeARekeyBeingAssembled() async throws {
        let ether = InMemoryEther()
        let devices = try await HandoffFixtures.devices(["a", "b", "c"], on: ether, declaredTypes: [noteType])
        let (a, b) = (devices[0], devices[1])
        var store = a.store
        let message = try #require(try store.revoke(devices[2].store.identity.id).first { $0.to == b.store.identity.id })
        let json = [UInt8](try JSONEncoder().encode(message))
        let link = try await a.radio.connect(to: b.radio.address)
        let session = try #require(Nonce(bytes: [9, 9, 9, 9, 9, 9, 9, 9]))
        let fragments = try PairingFragments.split(json, session: session, maximumValue: 120, fromServer: false,
                                                   asRekey: true)
        #expect(fragments.count >= 2)
        try await link.write(fragments[0].encoded())
        var strangers: [any RadioLink] = []
        for index in 0..<8 {
            let stranger = try await ether.makeRadio(address: "sim:eve\(index)").connect(to: b.radio.address)
            strangers.append(stranger)
            let other = try #require(Nonce(bytes: [UInt8](repeating: UInt8(index), count: 8)))
            try await stranger.write(TransferFrame.rekey(session: other, index: 0, count: 2, chunk: [1, 2, 3]).encoded())
        }
        for fragment in fragments.dropFirst() { try await link.write(fragment.encoded()) }
        let reply = try await first(link.notifications)
        #expect(reply == TransferFrame.rekeyApplied(session: session).encoded())
        #expect(await b.engine.trust.group == store.group)
        await link.disconnect()
        for stranger in strangers { await stranger.disconnect() }
    }
}

/// `RekeyAssemblies` alone: one message per central, room made only by a quiet one.
struct RekeyAssembliesTests {
    private func at(_ seconds: Int) -> HandoffInstant { HandoffInstant(offset: .seconds(seconds)) }
    private func session(_ byte: UInt8) throws -> Nonce { try #require(Nonce(bytes: [UInt8](repeating: byte, count: 8))) }

    @Test func aFullDeskRefusesANewcomerUntilOneIsQuietAndNeverWipesAnother() throws {
        var desk = RekeyAssemblies(capacity: 2, quietLimit: .seconds(15))
        let (a, b, c) = (PeerAddress("a"), PeerAddress("b"), PeerAddress("c"))
        #expect(desk.add(from: a, session: try session(1), index: 0, count: 2, chunk: [1], at: at(0)) == .incomplete)
        #expect(desk.add(from: b, session: try session(2), index: 0, count: 2, chunk: [2], at: at(10)) == .incomplete)
        // Full: c waits, and a's and b's halves stay.
        #expect(desk.add(from: c, session: try session(3), index: 0, count: 1, chunk: [3], at: at(11)) == .incomplete)
        #expect(desk.add(from: b, session: try session(2), index: 1, count: 2, chunk: [4], at: at(12)) == .complete([2, 4]))
        // b's place is free again: c gets it; a, quiet since 0, makes no room before 15 s and keeps its half.
        #expect(desk.add(from: c, session: try session(3), index: 0, count: 1, chunk: [3], at: at(13)) == .complete([3]))
        #expect(desk.add(from: a, session: try session(1), index: 1, count: 2, chunk: [5], at: at(14)) == .complete([1, 5]))
    }

    @Test func aQuietAssemblyMakesRoom() throws {
        var desk = RekeyAssemblies(capacity: 1, quietLimit: .seconds(15))
        #expect(desk.add(from: PeerAddress("a"), session: try session(1), index: 0, count: 2, chunk: [1], at: at(0))
                    == .incomplete)
        #expect(desk.add(from: PeerAddress("c"), session: try session(3), index: 0, count: 1, chunk: [3], at: at(15))
                    == .complete([3]))
    }
}
