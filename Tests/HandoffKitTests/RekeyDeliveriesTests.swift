import Foundation
@testable import HandoffKit
import Testing

/// What a revoking device still owes the others, driven with beacons alone: who gets the new key, when, and once.
@Suite struct RekeyDeliveriesTests {
    let store: TrustStore
    let peers: [UUID]
    let revoked: UUID

    init() throws {
        let laptop = try TrustStore.create(deviceName: "laptop")
        let others = try ["desktop", "tablet", "phone"].map { name throws(HandoffError) in
            try DeviceIdentity.generate(name: name)
        }
        store = TrustStore(identity: laptop.identity, group: laptop.group, devices: others.map { $0.asTrustedDevice })
        peers = store.devices.map(\.id)
        revoked = peers[2]
    }

    /// The deliveries after revoking `revoked` from `store`, and the previous group.
    func revoke() throws -> (RekeyDeliveries, TrustGroup) {
        var after = store
        let messages = try after.revoke(revoked)
        var deliveries = RekeyDeliveries()
        deliveries.revoked(revoked, previous: store.group, messages: messages)
        return (deliveries, store.group)
    }

    func beacon(of device: UUID, under group: TrustGroup) -> [UInt8] {
        BeaconCodec(group: group, devices: [device]).seal(device: device, typeTag: [0, 0, 0, 0, 0, 0, 0, 0], sequence: 1)
    }

    @Test func eachRemainingDeviceIsOwedTheKeyAndTheRevokedOneIsNot() throws {
        let (deliveries, _) = try revoke()
        #expect(Set(deliveries.awaiting) == Set(peers[0..<2]))
    }

    @Test func anOldKeyBeaconStartsOneDeliveryAtATime() throws {
        var (deliveries, previous) = try revoke()
        let heard = deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: previous))
        #expect(heard?.device == peers[0])
        #expect(heard?.message.to == peers[0])
        // Its next beacons while the delivery runs start nothing; a failed delivery lets the next one try again.
        #expect(deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: previous)) == nil)
        deliveries.finished(peers[0], delivered: false)
        #expect(deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: previous))?.device == peers[0])
        deliveries.finished(peers[0], delivered: true)
        #expect(deliveries.awaiting == [peers[1]])
        #expect(deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: previous)) == nil)
    }

    @Test func theRevokedDeviceAndStrangersGetNothing() throws {
        var (deliveries, previous) = try revoke()
        #expect(deliveries.heardUnderPreviousKey(beacon(of: revoked, under: previous)) == nil)
        #expect(deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: try TrustGroup.generate())) == nil)
        #expect(deliveries.heardUnderPreviousKey([0x01, 0x02]) == nil)
    }

    @Test func oncePaidTheOldKeyOpensNothing() throws {
        var (deliveries, previous) = try revoke()
        for peer in peers[0..<2] {
            _ = deliveries.heardUnderPreviousKey(beacon(of: peer, under: previous))
            deliveries.finished(peer, delivered: true)
        }
        #expect(deliveries.awaiting.isEmpty)
        // A later revocation from another group starts afresh.
        let later = try TrustGroup.generate()
        deliveries.revoked(revoked, previous: later, messages: [])
        #expect(deliveries.awaiting.isEmpty)
    }

    @Test func aDeviceDroppedFromTheTrustStoreIsOwedNothing() throws {
        var (deliveries, previous) = try revoke()
        deliveries.keep(only: [peers[1]])
        #expect(deliveries.awaiting == [peers[1]])
        #expect(deliveries.heardUnderPreviousKey(beacon(of: peers[0], under: previous)) == nil)
    }
}
