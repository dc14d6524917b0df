import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

@Suite final class BeaconTests {
    private var keepAlive: [SimulatedDevice] = []

    @Test func beaconFitsTheLegacyAdvertisingBudgetWithFlags() {
        let flags = 3                                   // length, type 0x01, value
        let manufacturerData = 1 + 1 + 2 + WireProtocol.beaconLength   // length, type 0xFF, company id, beacon
        #expect(flags + manufacturerData <= 31)
        let serviceData = 1 + 1 + 2 + WireProtocol.beaconLength        // length, type 0x16, 16-bit UUID, beacon
        #expect(flags + serviceData <= 31)
    }

    @Test func trustedPeerRecoversDeviceTypeAndSequence() throws {
        let group = try TrustGroup.generate()
        let device = UUID()
        let codec = BeaconCodec(group: group, devices: [UUID(), device])
        let tag = GroupKeys(group).typeTag(for: "org.handoff.note")
        let beacon = codec.seal(device: device, typeTag: tag, sequence: 0xDEAD_BEEF)
        #expect(beacon.count == WireProtocol.beaconLength)
        let opened = try #require(codec.open(beacon))
        #expect(opened.device == device)
        #expect(opened.typeTag == tag)
        #expect(opened.sequence == 0xDEAD_BEEF)
    }

    @Test func strangerCannotDecodeAndSeesNoStableBytes() throws {
        let group = try TrustGroup.generate()
        let device = UUID()
        let codec = BeaconCodec(group: group, devices: [device])
        let stranger = BeaconCodec(group: try TrustGroup.generate(), devices: [device])
        let tag = GroupKeys(group).typeTag(for: "org.handoff.note")
        let a = codec.seal(device: device, typeTag: tag, sequence: 7)
        let b = codec.seal(device: device, typeTag: tag, sequence: 7)   // a rotation: same content, new nonce
        #expect(stranger.open(a) == nil)
        #expect(stranger.open(b) == nil)
        // Apart from the version byte, the two beacons share no structure: about half their bits differ.
        let differingBits = zip(a.dropFirst(), b.dropFirst()).map { ($0 ^ $1).nonzeroBitCount }.reduce(0, +)
        #expect(differingBits > 50, "rotated beacons look alike (\(differingBits) of 184 bits differ)")
        #expect(!a.dropFirst().containsSubsequence(tag), "the type tag appears in clear")
        #expect(!a.dropFirst().containsSubsequence([0, 0, 0, 7]), "the sequence appears in clear")
    }

    @Test func everySingleBitFlipIsRejected() throws {
        let group = try TrustGroup.generate()
        let device = UUID()
        let codec = BeaconCodec(group: group, devices: [device])
        let beacon = codec.seal(device: device, typeTag: [1, 2, 3, 4], sequence: 99)
        for index in beacon.indices {
            for bit in 0..<8 {
                var tampered = beacon
                tampered[index] ^= UInt8(1 << bit)
                #expect(codec.open(tampered) == nil, "flip of bit \(bit) in byte \(index) was accepted")
            }
        }
    }

    @Test func untrustedDeviceCannotInjectActivities() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        keepAlive += [source, receiver]
        // A stranger with its own group advertises; the receiver never lists it.
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        configuration.beaconRotationInterval = nil
        let strangerEngine = try HandoffEngine(configuration: configuration,
                                               trust: try TrustStore.create(deviceName: "stranger"),
                                               radio: ether.makeRadio(address: "sim:stranger"))
        try await strangerEngine.start()
        let updates = await receiver.engine.availabilityUpdates()
        try await UserActivity(activityType: noteType).becomeCurrent(in: strangerEngine)
        // Random bytes and a stranger's beacon: nothing; then a real one arrives first.
        var generator = SeededGenerator(seed: 7)
        await ether.inject(beacon: [WireProtocol.version] + generator.bytes(23), from: PeerAddress("sim:noise"))
        let activity = UserActivity(activityType: otherType)
        try await activity.becomeCurrent(in: source.engine)
        let remote = try await first(updates)
        #expect(remote.device.name == "mac")
        let listed = await receiver.engine.availableActivities()
        #expect(listed.map(\.device.name) == ["mac"])
        await strangerEngine.stop()
    }

    @Test func untrustedRequesterReadsNothing() async throws {
        let ether = InMemoryEther()
        let (link, forged, devices) = try await strangerAtASecret(on: ether)
        keepAlive += devices
        try await link.write(forged.encoded())
        let reply = try await first(link.notifications)
        guard case .error(_, let code, _, _) = try TransferFrame.decode(reply) else {
            Issue.record("an untrusted requester got \(reply)")
            return
        }
        #expect(code == HandoffError.Code.untrustedPeer.rawValue)
        let stats = await ether.statistics
        #expect(stats.notificationsDelivered == 1)
        await link.disconnect()
    }

    @Test func replayedBeaconIsIgnored() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        keepAlive += [source, receiver]
        let sniffed = await ether.sniff()
        var sniffer = sniffed.makeAsyncIterator()
        let updates = await receiver.engine.availabilityUpdates()
        var iterator = updates.makeAsyncIterator()
        let activity = UserActivity(activityType: noteType)
        try await activity.becomeCurrent(in: source.engine)
        let recorded = await sniffer.next()
        let old = try #require(recorded)
        let next1 = await iterator.next()
        let firstSeen = try #require(next1)
        activity.title = "v2"
        let next2 = await iterator.next()
        let second = try #require(next2)
        #expect(second.sequence > firstSeen.sequence)
        // Replay the old beacon (and the newest one, verbatim) from another address: neither is news.
        await ether.inject(beacon: old.beacon, from: PeerAddress("sim:replayer"))
        let current = await ether.currentAdvertisement(of: source.radio.address)
        await ether.inject(beacon: try #require(current), from: PeerAddress("sim:replayer"))
        activity.title = "v3"
        let next3 = await iterator.next()
        let third = try #require(next3)
        #expect(third.sequence > second.sequence, "a replayed beacon surfaced as an availability")
        #expect(third.peer == source.radio.address)
    }

    @Test func rotationKeepsTheSequenceAndChangesTheBytes() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        keepAlive += [source, receiver]
        let activity = UserActivity(activityType: noteType)
        let remote = try await offer(activity, from: source, to: receiver)
        let before = await ether.currentAdvertisement(of: source.radio.address)
        try await source.engine.rotateBeacon()
        let after = await ether.currentAdvertisement(of: source.radio.address)
        #expect(before != after)
        let listed = await receiver.engine.availableActivities()
        #expect(listed.first?.sequence == remote.sequence)
        #expect(listed.count == 1)
    }

    @Test func theEngineResealsItsBeaconEveryRotationIntervalAndNotBefore() async throws {
        let clock = VirtualClock()
        let ether = InMemoryEther(clock: clock)
        let interval = Duration.seconds(900)
        let (source, receiver, _) = try await makePair(ether: ether, configure: { $0.beaconRotationInterval = interval })
        keepAlive += [source, receiver]
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let sealed = await ether.currentAdvertisement(of: source.radio.address)
        for _ in 0..<1000 where clock.sleeperCount == 0 { try await quiet(ether) }   // the rotation task waits
        clock.advance(by: interval - .seconds(1))
        try await quiet(ether)
        let early = await ether.currentAdvertisement(of: source.radio.address)
        #expect(early == sealed, "the beacon was re-sealed before its rotation interval")
        var rotations: [[UInt8]?] = []
        var elapsed = interval - .seconds(1)   // since the beacon was last sealed
        for _ in 0..<2 {
            for _ in 0..<1000 where clock.sleeperCount == 0 { try await quiet(ether) }
            clock.advance(by: interval - elapsed)
            elapsed = .zero
            for _ in 0..<1000 where await ether.currentAdvertisement(of: source.radio.address) == (rotations.last ?? sealed) {
                try await quiet(ether)
            }
            rotations.append(await ether.currentAdvertisement(of: source.radio.address))
        }
        #expect(Set(rotations + [sealed]).count == 3, "each interval did not bring a freshly sealed beacon")
        let listed = await receiver.engine.availableActivities()
        #expect(listed.map(\.sequence) == [remote.sequence], "a rotation surfaced as a new activity")
    }
}

extension Sequence where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        let haystack = Array(self)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
