import HandoffKit
import HandoffShared

/// A `Radio` that forwards to another and counts `connect` calls (so a scenario can prove the engine reconnected),
/// the writes and notifications of its links (so it can show what loss cost), and remembers each link's MTU,
/// transport and setup phases, and when the frames of the last transfer passed (for the phase breakdown).
final class CountingRadio: RadioDecorator {
    let base: any Radio
    private let connects = Locked(0)
    private let refusals = Locked(0)
    private let advertisedBeacon = Locked<[UInt8]?>(nil)
    private let links = Locked<[(mtu: Int, transport: LinkTransport, setup: [LinkSetupPhase])]>([])
    let traffic = LinkTraffic()

    init(_ base: any Radio) { self.base = base }

    /// How many times `connect(to:)` was called.
    var connectCount: Int { connects.withLock { $0 } }
    /// The ATT MTU of the last link made.
    var lastMTU: Int? { links.withLock { $0.last?.mtu } }
    /// The transport of every link made, in order.
    var transports: [LinkTransport] { links.withLock { $0.map(\.transport) } }
    /// The setup phases of the last link made.
    var lastSetup: [LinkSetupPhase] { links.withLock { $0.last?.setup ?? [] } }

    /// The beacon the engine last advertised through this radio.
    var lastBeacon: [UInt8]? { advertisedBeacon.withLock { $0 } }

    func advertise(_ beacon: [UInt8]) async throws {
        try await base.advertise(beacon)
        advertisedBeacon.withLock { $0 = beacon }
    }

    /// Refuses the next `count` connects with `RadioError.unreachable`, before they reach BlueZ: a scenario's way
    /// to make a continue fail for want of a connection while the source and bluetoothd carry on as usual.
    func refuseConnects(_ count: Int) {
        refusals.withLock { $0 = count }
    }

    func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let refused = refusals.withLock { count in
            defer { count = max(0, count - 1) }
            return count > 0
        }
        if refused { throw RadioError(.unreachable, "refused by the scenario") }
        connects.withLock { $0 += 1 }
        traffic.connecting()
        let link = try await base.connect(to: peer)
        links.withLock { $0.append((link.mtu, link.transport, link.setup)) }
        traffic.linked()
        return CountingLink(link, traffic: traffic)
    }
}

/// Writes sent and notifications received over a radio's links, the offsets of the DATA frames received, and
/// the moments of a transfer: connect called, link up, REQUEST sent, OPEN received, last DATA, DONE sent.
final class LinkTraffic: Sendable {
    struct Timeline: Sendable {
        var connect: ContinuousClock.Instant?
        var linked: ContinuousClock.Instant?
        var request: ContinuousClock.Instant?
        var open: ContinuousClock.Instant?
        var lastData: ContinuousClock.Instant?
        var done: ContinuousClock.Instant?
    }

    private let counts = Locked((writes: 0, notifications: 0, offsets: [Int](), timeline: Timeline()))

    var writes: Int { counts.withLock { $0.writes } }
    var notifications: Int { counts.withLock { $0.notifications } }
    /// Offsets of every DATA frame received, in order of arrival.
    var dataOffsets: [Int] { counts.withLock { $0.offsets } }
    /// The last transfer's moments.
    var timeline: Timeline { counts.withLock { $0.timeline } }

    /// Forgets the timeline (before a new continue).
    func resetTimeline() { counts.withLock { $0.timeline = Timeline() } }

    func connecting() { counts.withLock { if $0.timeline.connect == nil { $0.timeline.connect = .now } } }
    func linked() { counts.withLock { if $0.timeline.linked == nil { $0.timeline.linked = .now } } }

    func wrote(_ value: [UInt8]) {
        counts.withLock { state in
            state.writes += 1
            guard value.count >= 2, value[0] == WireProtocol.version else { return }
            if value[1] == 0x01, state.timeline.request == nil { state.timeline.request = .now }
            if value[1] == 0x03 { state.timeline.done = .now }
        }
    }

    func notified(_ value: [UInt8]) {
        counts.withLock { state in
            state.notifications += 1
            guard value.count >= 2, value[0] == WireProtocol.version else { return }
            if value[1] == 0x81, state.timeline.open == nil { state.timeline.open = .now }
            if value[1] == 0x82, value.count >= 14 {
                state.offsets.append(value[10..<14].reduce(0) { $0 << 8 | Int($1) })
                // Frames still in flight after DONE (stale GATT notifications) are not part of the transfer.
                if state.timeline.done == nil { state.timeline.lastData = .now }
            }
        }
    }
}

/// A link that counts its traffic into a `LinkTraffic`.
final class CountingLink: RadioLink {
    let base: any RadioLink
    let notifications: AsyncStream<[UInt8]>
    private let traffic: LinkTraffic
    private let pump: Task<Void, Never>

    init(_ base: any RadioLink, traffic: LinkTraffic) {
        self.base = base
        self.traffic = traffic
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
        notifications = stream
        pump = Task {
            for await value in base.notifications {
                traffic.notified(value)
                continuation.yield(value)
            }
            continuation.finish()
        }
    }

    var peer: PeerAddress { base.peer }
    var mtu: Int { base.mtu }
    var maximumFrameLength: Int { base.maximumFrameLength }
    var transport: LinkTransport { base.transport }
    var setup: [LinkSetupPhase] { base.setup }

    func write(_ value: [UInt8]) async throws {
        traffic.wrote(value)
        try await base.write(value)
    }

    func disconnect() async {
        pump.cancel()
        await base.disconnect()
    }
}
