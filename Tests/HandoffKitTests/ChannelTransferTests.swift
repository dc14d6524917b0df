import Foundation
@testable import HandoffKit
import HandoffTesting
import HandoffShared
import Testing

/// The transfer over an L2CAP-like channel of the in-memory radio (`LinkConditions.channel`): whole-SDU DATA
/// frames, each fallback to GATT reported on the link, resume after the channel drops, and a stranger on the
/// channel. The frames and their checks are those of GATT; only their size and the path differ.
@Suite struct ChannelTransferTests {
    /// Runs `body`, then stops the engines of `devices`, whether it threw or not.
    private func stopping<R>(_ devices: [SimulatedDevice], _ body: () async throws -> R) async throws -> R {
        let result: Result<R, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for device in devices { await device.engine.stop() }
        return try result.get()
    }

    /// Every DATA frame the source delivers, as (offset, byte count), read off the air without changing it.
    final class DataTap: Sendable {
        private let frames = Locked<[(offset: Int, count: Int)]>([])
        var data: [(offset: Int, count: Int)] { frames.withLock { $0 } }

        func install(on ether: InMemoryEther) async {
            await ether.setNotificationTamper { [self] value in
                if value.count >= 14, value[1] == 0x82 {
                    let offset = value[10..<14].reduce(0) { $0 << 8 | Int($1) }
                    frames.withLock { $0.append((offset, value.count - 14)) }
                }
                return value
            }
        }
    }

    private func blob(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    /// Continues a note carrying `bytes` under `conditions`; returns the outcome, the link transports the
    /// receiver's engine used (through a recording radio) and the ether's counters.
    /// With `clock`, the transfer runs on its virtual time, a stall window passing whenever the ether is quiet.
    private func continueNote(bytes: Int, conditions: LinkConditions, tap: DataTap? = nil, clock: VirtualClock? = nil,
                              configure: (inout HandoffConfiguration) -> Void = { _ in })
        async throws -> (outcome: ContinuationOutcome, stats: InMemoryStatistics, transports: [LinkTransport]) {
        let ether = clock.map { InMemoryEther(clock: $0) } ?? InMemoryEther()
        await ether.setConditions(conditions)
        // A long stall interval: a busy test host must not make the client re-ask (which would send frames twice
        // and hide what these tests count); the loss test sets its own.
        let devices = try await HandoffFixtures.devices(["mac", "pc"], on: ether, declaredTypes: [noteType],
                                                        configure: { configuration in
            configuration.stallInterval = .seconds(20)
            configure(&configuration)
        })
        let source = devices[0]
        // The receiver runs over a radio that records each link's transport.
        let recorder = RecordingRadio(devices[1].radio)
        await devices[1].engine.stop()
        let engine = try HandoffEngine(configuration: devices[1].engine.configuration, trust: devices[1].store,
                                       radio: recorder, delegate: devices[1].delegate)
        try await engine.start()
        let receiver = SimulatedDevice(name: "pc", radio: devices[1].radio, engine: engine,
                                       delegate: devices[1].delegate, store: devices[1].store)
        return try await stopping([source, receiver]) {
            await tap?.install(on: ether)
            let activity = UserActivity(activityType: noteType)
            activity.title = "Groceries"
            activity.userInfo = bytes == 0 ? [:] : ["content": "milk, eggs", "blob": .data(blob(bytes))]
            let remote = try await offer(activity, from: source, to: receiver)
            let outcome: ContinuationOutcome
            if let clock {
                outcome = try await onVirtualTime(clock, of: ether, step: engine.configuration.stallInterval) {
                    await engine.continueActivity(remote)
                }
            } else {
                outcome = await receiver.engine.continueActivity(remote)
            }
            return (outcome, await ether.statistics, recorder.transports)
        }
    }

    @Test func wholeSDUDataFramesCarryHalfAMebibyteInNineFrames() async throws {
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 65535)
        let tap = DataTap()
        let (outcome, stats, transports) = try await continueNote(bytes: 1 << 19, conditions: conditions, tap: tap,
                                                                  configure: { configuration in
            configuration.maximumPayloadSize = 1 << 20
            configuration.channelFetchWindow = 0            // the whole payload in one FETCH
        })
        let received = try #require(outcome.activity, "failed: \(String(describing: outcome.error))")
        #expect(received.userInfo["blob"] == .data(blob(1 << 19)))
        #expect(transports.map(\.kind) == [.l2cap])
        #expect(stats.channelConnections == 1)
        // Every payload DATA frame but the last of the stream fills a whole SDU: 65535 - 14 bytes.
        let payloadFrames = tap.data.dropFirst()       // the first frame is the metadata record alone
        #expect(payloadFrames.count > 1)
        #expect(payloadFrames.dropLast().allSatisfy { $0.count == 65535 - 14 }, "\(payloadFrames.map(\.count))")
        #expect(stats.largestFrame == 65535)
        // Contiguous, nothing sent twice, and the whole payload asked for in one FETCH (REQUEST, PROVE, FETCH, DONE).
        var next = 0
        for frame in tap.data {
            #expect(frame.offset == next)
            next += frame.count
        }
        #expect(stats.writesDelivered == 4)
    }

    @Test func smallNoteOverTheChannelTakesOneFrameForItsPayload() async throws {
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 65535)
        let tap = DataTap()
        let (outcome, _, transports) = try await continueNote(bytes: 3 * 1024, conditions: conditions, tap: tap)
        #expect(outcome.activity?.userInfo["blob"] == .data(blob(3 * 1024)))
        #expect(transports.map(\.kind) == [.l2cap])
        #expect(tap.data.count == 2, "one DATA frame for the metadata record, one for the payload")
    }

    @Test func emptyNoteOverTheChannel() async throws {
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 65535)
        let (outcome, _, transports) = try await continueNote(bytes: 0, conditions: conditions)
        #expect(outcome.activity?.userInfo == [:])
        #expect(transports.map(\.kind) == [.l2cap])
    }

    @Test func eachFallbackUsesGATTAndSaysWhy() async throws {
        let cases: [(ChannelAvailability, LinkTransport.Fallback)] = [
            (.notPublished, .notPublished), (.refused, .refused), (.unsupported, .unsupported),
        ]
        for (availability, reason) in cases {
            var conditions = LinkConditions()
            conditions.channel = availability
            let tap = DataTap()
            let (outcome, stats, transports) = try await continueNote(bytes: 8 * 1024, conditions: conditions, tap: tap)
            #expect(outcome.activity?.userInfo["blob"] == .data(blob(8 * 1024)), "\(availability)")
            #expect(transports.map(\.kind) == [.gatt], "\(availability)")
            #expect(transports.first?.fallback == reason, "\(availability)")
            #expect(stats.channelConnections == 0)
            #expect(stats.largestFrame <= WireProtocol.valueLength(forMTU: conditions.mtu))
            #expect(tap.data.allSatisfy { $0.count <= 247 - 3 - 14 }, "\(availability): GATT-sized DATA")
        }
    }

    @Test func resumeAfterTheChannelDropsStartsFromTheLastByteHeld() async throws {
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 8 * 1024)
        conditions.disconnectAfterNotifications = 6     // OPEN, the metadata frame, then 4 payload SDUs
        let tap = DataTap()
        let (outcome, stats, transports) = try await continueNote(bytes: 96 * 1024, conditions: conditions, tap: tap)
        let received = try #require(outcome.activity, "failed: \(String(describing: outcome.error))")
        #expect(received.userInfo["blob"] == .data(blob(96 * 1024)))
        #expect(stats.injectedDisconnections == 1)
        #expect(transports.map(\.kind) == [.l2cap, .l2cap], "reconnected over the channel")
        // The frame the drop swallowed is the only one sent twice: the second link resumed from the last byte
        // held, not from zero.
        let offsets = tap.data.map(\.offset)
        let repeated = offsets.count - Set(offsets).count
        #expect(repeated == 0, "delivered offsets \(offsets)")
    }

    @Test func silentSDULossIsFetchedAgainFromTheGap() async throws {
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 4 * 1024)
        conditions.channelLossRate = 0.2
        let (outcome, stats, _) = try await continueNote(bytes: 64 * 1024, conditions: conditions, clock: VirtualClock(),
                                                         configure: { $0.stallInterval = .milliseconds(500) })
        #expect(outcome.activity?.userInfo["blob"]
                == .data(blob(64 * 1024)), "failed: \(String(describing: outcome.error))")
        #expect(stats.notificationsLost > 0)
    }

    @Test func strangerOnTheChannelGetsUntrustedPeerAndNoPayloadByte() async throws {
        let ether = InMemoryEther()
        var conditions = LinkConditions()
        conditions.channel = .open(maximumSDU: 65535)
        await ether.setConditions(conditions)
        let (link, forged, devices) = try await strangerAtASecret(on: ether)
        try await stopping(devices) {
            #expect(link.transport.kind == .l2cap)
            try await link.write(forged.encoded())
            // A FETCH for a guessed transfer id gets nothing either.
            try await link.write(TransferFrame.fetch(transferID: .zero, from: 0, to: 4096).encoded())
            var iterator = link.notifications.makeAsyncIterator()
            var replies: [TransferFrame] = []
            for _ in 0..<2 {
                let next = await iterator.next()
                replies.append(try TransferFrame.decode(try #require(next)))
            }
            guard case .error(let context, let code, _, _) = replies[0] else {
                Issue.record("the stranger got \(replies)")
                return
            }
            #expect(context == ErrorContext(strangerNonce))
            #expect(code == HandoffError.Code.untrustedPeer.rawValue)
            guard case .error(_, let fetchCode, _, _) = replies[1] else {
                Issue.record("the stranger got \(replies)")
                return
            }
            #expect(fetchCode == HandoffError.Code.handoffFailed.rawValue)
            let stats = await ether.statistics
            #expect(stats.notificationsDelivered == 2, "two error frames and not one DATA frame")
            await link.disconnect()
        }
    }
}

/// A radio that remembers the transport of every link it made.
final class RecordingRadio: RadioDecorator {
    let base: any Radio
    private let made = Locked<[LinkTransport]>([])
    var transports: [LinkTransport] { made.withLock { $0 } }

    init(_ base: any Radio) { self.base = base }

    func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let link = try await base.connect(to: peer)
        made.withLock { $0.append(link.transport) }
        return link
    }
}
