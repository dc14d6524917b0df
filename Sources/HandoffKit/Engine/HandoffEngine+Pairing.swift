import FoundationEssentials
import HandoffShared

extension HandoffEngine {
    /// A pairing fragment written by a central, routed to `acceptPairing`.
    struct PairingWrite: Sendable {
        let central: PeerAddress
        let session: Nonce
        let index: UInt8
        let count: UInt8
        let chunk: [UInt8]
        let mtu: Int
    }

    /// What reaches a running `acceptPairing`: a central's fragment, or the tick of a central gone quiet.
    enum PairingInboxEvent: Sendable {
        case write(PairingWrite)
        case tick
    }

    /// Devices nearby that are in pairing mode. Ends when the engine stops.
    public func pairingCandidates() -> AsyncStream<PairingCandidate> {
        pairingCandidateBroadcast.subscribe()
    }

    /// Reports a pairing beacon to the watchers.
    func handlePairingBeacon(name: String, event: ScanEvent) {
        let candidate = PairingCandidate(name: name, peer: event.peer, rssi: event.rssi)
        pairingCandidateBroadcast.publish(candidate)
    }

    /// Routes a pairing fragment to the running `acceptPairing`, or refuses it.
    func handlePairingWrite(_ write: PairingWrite) async {
        guard let pairingInbox else {
            await sendPairingError(HandoffError(.pairingFailed, "this device is not in pairing mode"),
                                   session: write.session, to: write.central, mtu: write.mtu)
            return
        }
        pairingInbox.yield(.write(write))
    }

    /// Pairing mode (the responder, typically the device already in the group): advertises a pairing beacon with
    /// this device's name, answers the first device that starts pairing, calls `confirm` with the 6-digit code,
    /// and, when the user confirmed, adopts the new trust state and returns it (save it). Cancel the calling task
    /// to leave pairing mode. The current activity's beacon is paused meanwhile.
    ///
    /// Until the code is shown, a device that sends what does not parse or goes quiet for
    /// `pairingQuietLimit` is told so and dropped, and the next device to start is answered; after that, the
    /// exchange's end is the pairing's.
    public func acceptPairing(confirm: @escaping @Sendable (String) async -> Bool) async throws -> TrustStore {
        guard pairingInbox == nil else { throw HandoffError(.pairingFailed, "a pairing is already in progress") }
        let (stream, continuation) = AsyncStream<PairingInboxEvent>.makeStream()
        pairingInbox = continuation
        do {
            try await radio.advertise(PairingBeacon.encode(name: trust.identity.name))
            let store = try await answerPairing(stream, ticks: continuation, confirm: confirm)
            try await updateTrust(store)
            await leavePairingMode()
            return store
        } catch {
            await leavePairingMode()
            throw error
        }
    }

    private func leavePairingMode() async {
        pairingInbox?.finish()
        pairingInbox = nil
        if current != nil {
            try? await advertiseCurrent()
        } else {
            await advertiseIdle()
        }
    }

    /// Answers the exchanges arriving on `stream`; while a device's exchange is under way and its code not shown
    /// yet, a tick goes to `ticks` once it has been quiet for `pairingQuietLimit` (no timer runs otherwise).
    private func answerPairing(_ stream: AsyncStream<PairingInboxEvent>,
                               ticks: AsyncStream<PairingInboxEvent>.Continuation,
                               confirm: @Sendable (String) async -> Bool) async throws -> TrustStore {
        var responder = try PairingResponder(store: trust, clock: clock)
        var fragments = PairingFragments()
        var peer: PairingWrite?
        var step = 0
        var heard = clock.now
        var shown = false
        var quietTimer: Task<Void, Never>?
        defer { quietTimer?.cancel() }
        /// Drops the device being answered; the next one to start is answered afresh.
        func startOver() throws {
            quietTimer?.cancel()
            (responder, fragments, peer, step) = (try PairingResponder(store: trust, clock: clock),
                                                  PairingFragments(), nil, 0)
        }
        for await event in stream {
            let write: PairingWrite
            switch event {
            case .tick:
                guard let quiet = peer, !shown, clock.duration(since: heard) >= configuration.pairingQuietLimit else {
                    continue
                }
                await sendPairingError(HandoffError(.remoteApplicationTimedOut, "this device stopped waiting for the "
                                                        + "pairing; start again"),
                                       session: quiet.session, to: quiet.central, mtu: quiet.mtu)
                try startOver()
                continue
            case .write(let received):
                write = received
            }
            if let peer, peer.central != write.central || peer.session != write.session {
                await sendPairingError(HandoffError(.pairingFailed, "this device is pairing with another device"),
                                       session: write.session, to: write.central, mtu: write.mtu)
                continue
            }
            peer = write
            heard = clock.now
            quietTimer?.cancel()
            quietTimer = Task { [clock, limit = configuration.pairingQuietLimit] in
                do { try await clock.sleep(for: limit) } catch { return }
                ticks.yield(.tick)
            }
            do {
                guard let message = try fragments.add(index: write.index, count: write.count, chunk: write.chunk) else {
                    continue
                }
                switch step {
                case 0:
                    try await sendPairing(try responder.receiveHello(message), answering: write)
                    step = 1
                case 1:
                    try await sendPairing(try responder.receiveNonce(message), answering: write)
                    guard let code = responder.confirmationCode else {
                        throw HandoffError(.pairingFailed, "no code after the exchange")
                    }
                    shown = true
                    quietTimer?.cancel()
                    guard await confirm(code) else {
                        throw HandoffError(.pairingFailed, "the code was rejected on the other device")
                    }
                    step = 2
                default:
                    let (reply, store) = try responder.receiveConfirm(message)
                    try await sendPairing(reply, answering: write)
                    return store
                }
            } catch let error as HandoffError {
                await sendPairingError(error, session: write.session, to: write.central, mtu: write.mtu)
                // Once the code was shown the users took part: the exchange's end is the pairing's. Before, it was
                // only some device's bad start: answer the next one.
                guard !shown else { throw error }
                try startOver()
            }
        }
        throw HandoffError(.pairingFailed, "pairing mode ended before a device paired")
    }

    private func sendPairing(_ message: [UInt8], answering write: PairingWrite) async throws {
        guard let service else { throw HandoffError(.radioFailure, "the transfer service is not open; call start()") }
        let frames = try PairingFragments.split(message, session: write.session,
                                                maximumValue: WireProtocol.valueLength(forMTU: write.mtu), fromServer: true)
        for frame in frames {
            do {
                try await service.notify(frame.encoded(), to: write.central)
            } catch {
                throw HandoffError(.connectionUnavailable, "the other device left during pairing (\(error))")
            }
        }
    }

    private func sendPairingError(_ error: HandoffError, session: Nonce, to central: PeerAddress, mtu: Int) async {
        let room = WireProtocol.valueLength(forMTU: mtu) - 12
        let frame = TransferFrame.error(context: ErrorContext(session), code: error.code.rawValue,
                                        message: String(decoding: Array(error.message.utf8.prefix(max(room, 0))), as: UTF8.self))
        try? await service?.notify(frame.encoded(), to: central)
    }

    /// Pairs with `peer` (a `PairingCandidate`'s address) as the initiator, typically the new device. `confirm` is
    /// called with the 6-digit code, which the user compares with the other screen. When both sides confirmed,
    /// the new trust state is adopted and returned (save it).
    /// - Throws: `pairingFailed` (code rejected, tampering, different groups), `connectionUnavailable`,
    ///   `remoteApplicationTimedOut` after `timeout` without an answer.
    public func pair(with peer: PeerAddress, timeout: Duration = .seconds(60),
                     confirm: @escaping @Sendable (String) async -> Bool) async throws -> TrustStore {
        let link: any RadioLink
        do {
            link = try await radio.connect(to: peer)
        } catch {
            throw HandoffError(.connectionUnavailable, "cannot connect to \(peer) to pair (\(error))")
        }
        let inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
        do {
            let store = try await runPairing(on: link, inbox: inbox, timeout: timeout, confirm: confirm)
            inbox.close()
            await link.disconnect()
            try await updateTrust(store)
            return store
        } catch {
            inbox.close()
            await link.disconnect()
            throw error
        }
    }

    private nonisolated func runPairing(on link: any RadioLink, inbox: LinkInbox, timeout: Duration,
                                        confirm: @Sendable (String) async -> Bool) async throws -> TrustStore {
        let session = Nonce.random()
        var initiator = try PairingInitiator(store: await trust, clock: clock)
        var fragments = PairingFragments()
        var events = inbox.events.makeAsyncIterator()
        let maximumTicks = Int((timeout / configuration.stallInterval).rounded(.up)) + 1
        func send(_ message: [UInt8]) async throws {
            for frame in try PairingFragments.split(message, session: session,
                                                    maximumValue: WireProtocol.valueLength(forMTU: link.mtu),
                                                    fromServer: false) {
                do {
                    try await link.write(frame.encoded())
                } catch {
                    throw HandoffError(.connectionUnavailable, "the other device left during pairing (\(error))")
                }
            }
        }
        try await send(initiator.hello())
        var message = try await Self.receivePairing(&events, session: session, fragments: &fragments, ticks: maximumTicks)
        try await send(try initiator.receiveCommit(message))
        message = try await Self.receivePairing(&events, session: session, fragments: &fragments, ticks: maximumTicks)
        let code = try initiator.receiveReveal(message)
        guard await confirm(code) else {
            // Tell the responder, so it leaves pairing mode instead of waiting for our offer.
            try? await send(PairingMessage.make(PairingMessage.abort, []))
            throw HandoffError(.pairingFailed, "the code was rejected on this device")
        }
        try await send(try initiator.confirm())
        message = try await Self.receivePairing(&events, session: session, fragments: &fragments, ticks: maximumTicks)
        return try initiator.receiveFinish(message)
    }

    private static func receivePairing(_ events: inout AsyncStream<LinkInbox.Event>.Iterator, session: Nonce,
                                       fragments: inout PairingFragments, ticks maximumTicks: Int) async throws -> [UInt8] {
        var ticks = 0
        while let event = await events.next() {
            switch event {
            case .frame(let bytes):
                switch try TransferFrame.decode(bytes) {
                case .pair(session, let index, let count, let chunk, true):
                    if let message = try fragments.add(index: index, count: count, chunk: chunk) { return message }
                case .error(ErrorContext(session), let code, let message):
                    throw HandoffError(HandoffError.Code(rawValue: code), "the other device refused: \(message)")
                default:
                    continue
                }
            case .tick:
                ticks += 1
                if ticks > maximumTicks {
                    throw HandoffError(.remoteApplicationTimedOut, "the other device did not answer the pairing in time")
                }
            case .closed:
                throw HandoffError(.connectionUnavailable, "the other device left during pairing")
            }
        }
        throw HandoffError(.pairingFailed, "pairing was cancelled")
    }
}
