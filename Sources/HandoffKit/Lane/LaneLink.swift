import HandoffShared

/// A lane connection's frames split in two: the first (the handshake's) and the rest as a stream, read by one
/// task for the connection's whole life, so no iteration is ever cancelled half-way. The rest wait in a channel of
/// `backlog` frames: while nobody takes them, the task stops reading and the connection's own bound (and TCP's
/// window) holds the peer back.
final class LaneReader: Sendable {
    private enum First {
        case waiting
        case arrived([UInt8]?)
        case awaited(CheckedContinuation<[UInt8]?, Never>)
        case taken
    }

    /// Every frame after the first.
    let rest: AsyncStream<[UInt8]>
    private let state = Locked(First.waiting)
    private let pump: Task<Void, Never>

    /// Frames after the first held here at most (4 of the engine's 256 KiB frames).
    static let backlog = 4

    init(_ connection: any LaneConnection) {
        let channel = BoundedChannel<[UInt8]>(limit: Self.backlog)
        rest = channel.stream
        let state = self.state
        pump = Task {
            var first = true
            for await frame in connection.frames {
                if first {
                    first = false
                    Self.deliver(frame, to: state)
                } else {
                    await channel.push(frame)
                }
            }
            if first { Self.deliver(nil, to: state) }
            channel.finish()
        }
    }

    private static func deliver(_ frame: [UInt8]?, to state: Locked<First>) {
        let waiter: CheckedContinuation<[UInt8]?, Never>? = state.withLock { state in
            if case .awaited(let continuation) = state {
                state = .taken
                return continuation
            }
            state = .arrived(frame)
            return nil
        }
        waiter?.resume(returning: frame)
    }

    /// The first frame, or nil when the connection closed before one came. Call once.
    func first() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            let ready: [UInt8]?? = state.withLock { state in
                if case .arrived(let frame) = state {
                    state = .taken
                    return .some(frame)
                }
                state = .awaited(continuation)
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// The handshake of a lane connection (Docs/protocol.md §9), on either end.
enum LaneHandshake {
    /// Listener side: the first frame must be this transfer's LANE-HELLO for `ticket`, within `deadline`, or the
    /// connection is closed without a byte said. Returns the reader of the frames after it, having answered
    /// LANE-WELCOME; nil when the connection failed to prove itself (and is closed).
    static func admit(_ connection: any LaneConnection, keys: LaneKeys, ticket: [UInt8], deadline: Duration,
                      clock: any HandoffClock, claim: @Sendable () -> Bool) async -> LaneReader? {
        let reader = LaneReader(connection)
        let proven = Locked(false)
        let timer = Task {
            do { try await clock.sleep(for: deadline) } catch { return }
            if !proven.value { connection.close() }
        }
        defer { timer.cancel() }
        guard let first = await reader.first(), case .hello(let id, let mac) = LaneFrame.decode(first),
              id == keys.transferID, Sodium.constantTimeEqual(mac, keys.helloMAC(ticket: ticket)),
              proven.withLock({ proven in
                  // The deadline and the proof race; whichever comes first decides.
                  guard !proven else { return false }
                  proven = true
                  return true
              }), claim() else {
            connection.close()
            return nil
        }
        do {
            try await connection.send(LaneFrame.welcome(transferID: id, mac: keys.welcomeMAC(ticket: ticket)).encoded())
        } catch {
            connection.close()
            return nil
        }
        return reader
    }

    /// Connector side: connects to the offer's endpoints the policy admits, proves itself with LANE-HELLO and
    /// waits for LANE-WELCOME within `deadline`: an address that reaches some other machine (the same private
    /// address on another network) never answers it. Returns the proven connection and its reader.
    static func connect(_ offer: LaneOffer, keys: LaneKeys, lane: FastLane, clock: any HandoffClock) async
        throws(LaneError) -> (any LaneConnection, LaneReader) {
        let endpoints = offer.endpoints.filter(lane.policy.admits)
        guard !endpoints.isEmpty else { throw LaneError("the offer names no address this device may connect to") }
        let connection = try await lane.network.connect(to: endpoints, timeout: lane.connectTimeout)
        let reader = LaneReader(connection)
        let proven = Locked(false)
        let timer = Task {
            do { try await clock.sleep(for: lane.helloDeadline) } catch { return }
            if !proven.value { connection.close() }
        }
        defer { timer.cancel() }
        try await connection.send(LaneFrame.hello(transferID: keys.transferID,
                                                  mac: keys.helloMAC(ticket: offer.ticket)).encoded())
        guard let first = await reader.first(), case .welcome(let id, let mac) = LaneFrame.decode(first),
              id == keys.transferID, Sodium.constantTimeEqual(mac, keys.welcomeMAC(ticket: offer.ticket)),
              proven.withLock({ proven in
                  guard !proven else { return false }
                  proven = true
                  return true
              }) else {
            connection.close()
            throw LaneError("\(connection.remote) did not prove itself")
        }
        return (connection, reader)
    }
}

/// A proven lane connection seen as a link to the peer's transfer service: the sender of a push writes its frames
/// on it and reads the receiver's answers from it, as on an L2CAP channel.
struct LaneLink: RadioLink {
    let connection: any LaneConnection
    let reader: LaneReader

    var peer: PeerAddress { PeerAddress("tcp:\(connection.remote)") }
    /// ATT-sized code (pairing fragments) stays within 512 bytes, as on a channel.
    var mtu: Int { 515 }
    var maximumFrameLength: Int { LaneFraming.frameLength }
    var transport: LinkTransport { LinkTransport(.tcp, detail: connection.remote) }
    var notifications: AsyncStream<[UInt8]> { reader.rest }

    func write(_ value: [UInt8]) async throws {
        do { try await connection.send(value) } catch { throw RadioError(.disconnected, error.message) }
    }

    func disconnect() async { connection.close() }
}

/// The engine's transfer service with lane connections beside the radio's centrals: a proven lane connection is
/// one more central (named `tcp:…`), whose frames arrive among the radio's writes and whose answers go back on
/// the connection. Everything else goes to the radio's service unchanged. The engine takes writes one at a time;
/// at most `backlog` lane frames wait for it (a radio's writes are never held back), so a lane faster than the
/// engine waits in its socket, not in memory.
final class LaneService: TransferService {
    let base: any TransferService
    let writes: AsyncStream<IncomingWrite>
    private let channel: BoundedChannel<IncomingWrite>
    private let radioWrites: AsyncStream<IncomingWrite>.Continuation
    private let forwarder: Task<Void, Never>
    private let lanes = Locked<[PeerAddress: any LaneConnection]>([:])
    private let pump: Task<Void, Never>
    /// Open offers by transfer, so one transfer has one listener at a time.
    let offers = Locked<[TransferID: any LaneListener]>([:])
    /// Continues whose source is connecting to the client's offer.
    let connecting = Locked<Set<TransferID>>([])

    /// Lane frames waiting for the engine at most.
    static let backlog = 4

    init(base: any TransferService) {
        self.base = base
        let channel = BoundedChannel<IncomingWrite>(limit: Self.backlog)
        self.channel = channel
        writes = channel.stream
        // The radio's writes queue without bound, as they did before the lane (a radio never waits on the
        // engine); one task moves them into the channel in order.
        let (radioStream, radioWrites) = AsyncStream<IncomingWrite>.makeStream()
        self.radioWrites = radioWrites
        forwarder = Task {
            for await write in radioStream { await channel.push(write) }
            channel.finish()
        }
        pump = Task {
            for await write in base.writes { radioWrites.yield(write) }
            radioWrites.finish()
        }
    }

    /// Takes a proven connection as the central `central`, its frames read by `reader`.
    func adopt(_ connection: any LaneConnection, reader: LaneReader, as central: PeerAddress) {
        lanes.withLock { $0[central] = connection }
        let (channel, lanes) = (channel, lanes)
        Task {
            for await frame in reader.rest {
                await channel.push(IncomingWrite(central: central, value: frame, mtu: 515,
                                                 maximumFrameLength: LaneFraming.frameLength, transport: .tcp))
            }
            _ = lanes.withLock { $0.removeValue(forKey: central) }
        }
    }

    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        if let lane = lanes.withLock({ $0[central] }) {
            do { try await lane.send(value) } catch { throw RadioError(.disconnected, error.message) }
            return
        }
        try await base.notify(value, to: central)
    }

    /// A lane central is dropped by closing its connection (it proved itself, so the gate drops one only for a
    /// frame no client writes; its listener is gone with the offer, so there is nothing to keep it away from); a
    /// radio central through the radio's service.
    func drop(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async {
        if let lane = lanes.withLock({ $0.removeValue(forKey: central) }) {
            lane.close()
            return
        }
        await base.drop(central, keepingAwayFor: cooldown)
    }

    func close() async {
        for lane in lanes.withLock({ $0.values }) { lane.close() }
        for listener in offers.withLock({ $0.values }) { listener.close() }
        pump.cancel()
        forwarder.cancel()
        channel.finish()
        await base.close()
    }
}
