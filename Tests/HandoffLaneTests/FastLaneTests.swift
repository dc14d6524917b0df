import Foundation
@testable import HandoffKit
import HandoffLane
import HandoffShared
import HandoffTesting
import Testing

/// The fast lane on real TCP sockets (this host's loopback, which only the tests' policy admits), between two
/// engines whose BLE is the in-memory radio: the move of a big share to the lane, a small one staying on BLE, a
/// lane dropped mid-transfer, and connections that do not prove themselves.
@Suite final class FastLaneTests {
    private var directories: [URL] = []

    deinit {
        for directory in directories { try? FileManager.default.removeItem(at: directory) }
    }

    private func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lane-tests-\(UUID().uuidString)")
        directories.append(url)
        return url
    }

    private func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }
    }

    /// A sender and a receiver (taking shares into a real inbox) with the lane over `network` on both; `report`
    /// hears both sides' lane events.
    private func pair(network: any LaneNetwork, threshold: Int = 64 * 1024, ether: InMemoryEther = InMemoryEther(),
                      report: @escaping @Sendable (LaneEvent) -> Void = { _ in })
        async throws -> (sender: SimulatedDevice, receiver: SimulatedDevice, inbox: ShareInbox) {
        let all = try await HandoffFixtures.devices(["laptop", "desktop"], on: ether,
                                                    declaredTypes: ["org.handoff.note"]) { configuration in
            var lane = FastLane(network: network, policy: .loopbackForTests)
            lane.threshold = threshold
            lane.retryInterval = .milliseconds(200)
            lane.report = report
            configuration.fastLane = lane
        }
        var limits = ShareLimits()
        limits.maximumItemSize = 64 << 20
        let inbox = try ShareInbox(directory: temporaryDirectory(), limits: limits)
        let sighting = await all[0].engine.sightings()
        await all[1].engine.enableSharing(inbox: inbox, advertisePresence: true)
        var iterator = sighting.makeAsyncIterator()
        _ = await iterator.next()
        return (all[0], all[1], inbox)
    }

    private func contents(of inbox: ShareInbox) throws -> [UInt8] {
        let item = try #require(inbox.items().first, "nothing arrived")
        return [UInt8](try Data(contentsOf: inbox.dataURL(of: item.id)))
    }

    @Test func aBigShareMovesToTheLaneAndArrivesIntact() async throws {
        let ether = InMemoryEther()
        var channel = LinkConditions()
        channel.channel = .open(maximumSDU: 4096)
        channel.delay = .milliseconds(1)   // BLE is slower than any network: 4 KiB a millisecond at best here
        await ether.setConditions(channel)
        let lane = CountingLane(base: TCPLane(policy: .loopbackForTests))
        let (sender, receiver, inbox) = try await pair(network: lane, ether: ether)
        let blob = pattern(8 << 20)
        let paths = Locked<[LinkTransport.Kind]>([])
        try await sender.engine.push(
            OutgoingShare(metadata: ShareMetadata(kind: .file, name: "video.bin", mediaType: "video/mp4"),
                          content: .bytes(blob)),
            to: receiver.store.identity.id, path: { path in paths.withLock { $0.append(path.kind) } })
        #expect(try contents(of: inbox) == blob, "the item did not arrive byte for byte")
        #expect(paths.value.first == .l2cap, "the push did not start on BLE")
        #expect(paths.value.last == .tcp, "the push did not move to the fast lane")
        // The lane carried the rest of the item, once: what it sent plus what BLE had delivered before is the
        // stream, give or take the DATA in flight on BLE at the switch (how much that is depends on timing).
        #expect(lane.dataBytes.value > 0, "no DATA went over the lane")
        #expect(lane.dataBytes.value <= blob.count + blob.count / 4096 * 16 + 1024, "the lane sent more than the stream")
    }

    @Test func aSmallShareStaysOnBLEAndNoPortIsOpened() async throws {
        let lane = CountingLane(base: TCPLane(policy: .loopbackForTests))
        let (sender, receiver, inbox) = try await pair(network: lane, threshold: 1 << 20)
        let blob = pattern(100_000)
        let paths = Locked<[LinkTransport.Kind]>([])
        try await sender.engine.push(
            OutgoingShare(metadata: ShareMetadata(kind: .file, name: "small.bin", mediaType: "application/octet-stream"),
                          content: .bytes(blob)),
            to: receiver.store.identity.id, path: { path in paths.withLock { $0.append(path.kind) } })
        #expect(try contents(of: inbox) == blob)
        #expect(!(paths.value.contains(.tcp)))
        #expect(lane.listens.value == 0, "a listener was opened for a share under the threshold")
    }

    @Test func aLaneDroppedMidTransferResumesFromTheReceiversPartialAndArrivesIntact() async throws {
        let lane = CountingLane(base: TCPLane(policy: .loopbackForTests))
        let ether = InMemoryEther()
        var channel = LinkConditions()
        channel.channel = .open(maximumSDU: 4096)
        channel.delay = .milliseconds(1)
        await ether.setConditions(channel)
        let events = Locked<[LaneEvent]>([])
        let (sender, receiver, inbox) = try await pair(network: lane, ether: ether,
                                                       report: { event in events.withLock { $0.append(event) } })
        let blob = pattern(16 << 20)
        let paths = Locked<[LinkTransport.Kind]>([])
        let starts = Locked<[Int]>([])
        let dropped = Locked(false)
        let last = Locked(0)
        try await sender.engine.push(
            OutgoingShare(metadata: ShareMetadata(kind: .file, name: "big.bin", mediaType: "application/octet-stream"),
                          content: .bytes(blob)),
            to: receiver.store.identity.id,
            progress: { sent, total in
                // A writer's first report is where the receiver told it to start (ACCEPT).
                let restarted = last.withLock { last in defer { last = sent }; return sent < last || last == 0 }
                if restarted { starts.withLock { $0.append(sent) } }
                if sent > total / 3, paths.value.last == .tcp,
                   dropped.withLock({ dropped in defer { dropped = true }; return !dropped }) {
                    lane.breakAll()   // the network goes away under the lane
                }
            },
            path: { path in paths.withLock { $0.append(path.kind) } })
        #expect(try contents(of: inbox) == blob, "the item did not survive the drop intact")
        #expect(dropped.value, "the lane never carried a third of the item: \(paths.value)")
        let kinds = paths.value
        let firstLane = try #require(kinds.firstIndex(of: .tcp), "never on the lane")
        #expect(kinds[(firstLane + 1)...].contains(.l2cap), "after the drop the push did not go back to BLE: \(kinds)")
        // Every restart after the first began where the receiver stood: beyond the start, never from zero.
        #expect(starts.value.dropFirst().allSatisfy { $0 > 0 }, "a resumption started from zero: \(starts.value)")
        // The sender says so: the switch, what the lane carried before the drop, and the fall back with its reason.
        let said = events.value
        let switched = try #require(said.firstIndex { if case .switched = $0 { true } else { false } }, "\(said)")
        let fellBack = try #require(said.firstIndex { if case .fellBack = $0 { true } else { false } }, "\(said)")
        #expect(switched < fellBack)
        #expect(said[switched..<fellBack].contains { if case .carried(_, let bytes, _) = $0 { bytes > 0 } else { false } },
                "\(said)")
        #expect(said.contains { if case .offered = $0 { true } else { false } }, "\(said)")
        if case .fellBack(_, let reason) = said[fellBack] {
            #expect(reason.contains("the lane"), "\(reason)")
        }
    }

    @Test func aBigContinuePayloadMovesToTheLaneAndArrivesIntact() async throws {
        let ether = InMemoryEther()
        var channel = LinkConditions()
        channel.channel = .open(maximumSDU: 4096)
        channel.delay = .milliseconds(2)
        await ether.setConditions(channel)
        let devices = try await HandoffFixtures.devices(["mac", "pc"], on: ether,
                                                        declaredTypes: ["org.handoff.note"]) { configuration in
            var lane = FastLane(network: TCPLane(policy: .loopbackForTests), policy: .loopbackForTests)
            lane.threshold = 64 * 1024
            configuration.fastLane = lane
        }
        let (source, receiver) = (devices[0], devices[1])
        let blob = pattern(900_000)
        let activity = UserActivity(activityType: "org.handoff.note")
        activity.title = "Big note"
        activity.userInfo = ["blob": .data(Data(blob))]
        let updates = await receiver.engine.availabilityUpdates()
        try await activity.becomeCurrent(in: source.engine)
        var iterator = updates.makeAsyncIterator()
        let heard = await iterator.next()
        let remote = try #require(heard)
        let outcome = await receiver.engine.continueActivity(remote)
        guard case .continued(let received, _, let transport) = outcome else {
            Issue.record("the continue failed: \(outcome)")
            return
        }
        #expect(received.userInfo["blob"] == .data(Data(blob)), "the payload did not arrive byte for byte")
        #expect(transport.kind == .tcp, "the payload's last byte did not come over the fast lane")
    }

    @Test func aSmallContinueStaysOnBLE() async throws {
        let lane = CountingLane(base: TCPLane(policy: .loopbackForTests))
        let devices = try await HandoffFixtures.devices(["mac", "pc"], on: InMemoryEther(),
                                                        declaredTypes: ["org.handoff.note"]) { configuration in
            configuration.fastLane = FastLane(network: lane, policy: .loopbackForTests)
        }
        let activity = UserActivity(activityType: "org.handoff.note")
        activity.userInfo = ["text": "milk, eggs"]
        let updates = await devices[1].engine.availabilityUpdates()
        try await activity.becomeCurrent(in: devices[0].engine)
        var iterator = updates.makeAsyncIterator()
        let heard = await iterator.next()
        let remote = try #require(heard)
        let outcome = await devices[1].engine.continueActivity(remote)
        guard case .continued(_, _, let transport) = outcome else {
            Issue.record("the continue failed: \(outcome)")
            return
        }
        #expect(transport.kind == .gatt)
        #expect(lane.listens.value == 0, "a port was opened for a small continue")
    }

    @Test func connectionsThatDoNotProveThemselvesAreClosedWithoutAWord() async throws {
        let network = TCPLane(policy: .loopbackForTests)
        let listener = try await network.listen()
        defer { listener.close() }
        let endpoint = try #require(listener.endpoints.first { $0.isLoopback })
        let keys = LaneKeys(transferKey: Sodium.randomBytes(32), transferID: TransferID(bytes: Sodium.randomBytes(8))!)
        let ticket = Sodium.randomBytes(LaneOffer.ticketLength)
        let accepted = Locked<[Bool]>([])
        let handled = AsyncStream<Void>.makeStream()
        Task {
            for await connection in listener.connections {
                Task {
                    let reader = await LaneHandshake.admit(connection, keys: keys, ticket: ticket,
                                                           deadline: .milliseconds(300), clock: RealClock(),
                                                           claim: { true })
                    accepted.withLock { $0.append(reader != nil) }
                    handled.continuation.yield()
                }
            }
        }
        var events = handled.stream.makeAsyncIterator()
        // Random bytes, a hello for another ticket (what a replay of another offer's hello is), and silence.
        let scanner = try await network.connect(to: [endpoint], timeout: .seconds(2))
        try await scanner.send(Sodium.randomBytes(40))
        _ = await events.next()
        let replayed = try await network.connect(to: [endpoint], timeout: .seconds(2))
        try await replayed.send(LaneFrame.hello(transferID: keys.transferID,
                                                mac: keys.helloMAC(ticket: Sodium.randomBytes(16))).encoded())
        _ = await events.next()
        let silent = try await network.connect(to: [endpoint], timeout: .seconds(2))
        _ = await events.next()
        for connection in [scanner, replayed, silent] {
            var frames = connection.frames.makeAsyncIterator()
            let answer = await frames.next()
            #expect(answer == nil, "a connection that did not prove itself was answered or left open")
        }
        // The real hello is welcomed.
        let real = try await network.connect(to: [endpoint], timeout: .seconds(2))
        try await real.send(LaneFrame.hello(transferID: keys.transferID, mac: keys.helloMAC(ticket: ticket)).encoded())
        _ = await events.next()
        var frames = real.frames.makeAsyncIterator()
        let answered = await frames.next()
        let welcome = try #require(answered)
        #expect(LaneFrame.decode(welcome)
                == .welcome(transferID: keys.transferID, mac: keys.welcomeMAC(ticket: ticket)))
        #expect(accepted.value == [false, false, false, true])
        real.close()
    }

    @Test func anOfferOpensOnlyUnderItsTransfersKeyAndTheProductionPolicyRefusesLoopback() throws {
        let id = TransferID(bytes: Sodium.randomBytes(8))!
        let key = Sodium.randomBytes(32)
        let keys = LaneKeys(transferKey: key, transferID: id)
        let offer = LaneOffer(ticket: Sodium.randomBytes(16), port: 40_123, addresses: [[192, 0, 2, 7], [127, 0, 0, 1]])
        let frame = try #require(LaneFrame.decode(keys.seal(offer)))
        #expect(keys.open(frame) == offer)
        #expect(LaneKeys(transferKey: Sodium.randomBytes(32), transferID: id).open(frame) == nil)
        let other = LaneKeys(transferKey: key, transferID: TransferID(bytes: Sodium.randomBytes(8))!)
        #expect(other.open(frame) == nil, "an offer opened for another transfer")
        #expect(offer.endpoints.filter(LanePolicy.production.admits).map(\.description) == ["192.0.2.7:40123"])
        #expect(!(LanePolicy.production.admits(LaneEndpoint(address: [UInt8](repeating: 0, count: 15) + [1], port: 1)!)))
        #expect(!(LanePolicy.production.admits(LaneEndpoint(address: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1],
                                                                 port: 1)!)))
    }
}

/// A lane that counts listeners and can break every connection it made or accepted (the network going away).
final class CountingLane: LaneNetwork {
    let base: any LaneNetwork
    let listens = Locked(0)
    private let connections = Locked<[any LaneConnection]>([])

    init(base: any LaneNetwork) { self.base = base }

    func listen() async throws(LaneError) -> any LaneListener {
        listens.withLock { $0 += 1 }
        return try await base.listen()
    }

    let dataBytes = Locked(0)

    func connect(to endpoints: [LaneEndpoint], timeout: Duration) async throws(LaneError) -> any LaneConnection {
        let connection = CountingConnection(base: try await base.connect(to: endpoints, timeout: timeout),
                                            dataBytes: dataBytes)
        connections.withLock { $0.append(connection) }
        return connection
    }

    func breakAll() {
        for connection in connections.withLock({ $0 }) { connection.close() }
    }
}

/// A connection that counts the share DATA bytes sent on it.
struct CountingConnection: LaneConnection {
    let base: any LaneConnection
    let dataBytes: Locked<Int>
    var remote: String { base.remote }
    var frames: AsyncStream<[UInt8]> { base.frames }
    func send(_ frame: [UInt8]) async throws(LaneError) {
        if frame.count > ShareFrame.dataOverhead, frame[1] == ShareFrame.Kind.data.rawValue {
            dataBytes.withLock { $0 += frame.count - ShareFrame.dataOverhead }
        }
        try await base.send(frame)
    }
    func close() { base.close() }
}
