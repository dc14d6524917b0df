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

    /// What reaches a running `acceptPairing`: a central's fragment, the tick of its one timer (some device was
    /// quiet for `pairingQuietLimit`), or the user's answer to the code shown.
    enum PairingInboxEvent: Sendable {
        case write(PairingWrite)
        case tick
        case answered(Bool)
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
    func handlePairingWrite(_ write: PairingWrite) async -> Gate.Writer {
        guard let pairingInbox else {
            await sendPairingError(HandoffError(.pairingFailed, "this device is not in pairing mode"),
                                   session: write.session, to: write.central, mtu: write.mtu)
            return .dropped
        }
        pairingInbox.yield(.write(write))
        return .kept
    }

    /// Pairing mode (the responder, typically the device already in the group): advertises a pairing beacon with
    /// this device's name, answers the devices that start pairing, calls `confirm` with the 6-digit code of the
    /// first to reach it, and, when the user confirmed, adopts the new trust state and returns it (save it). Cancel
    /// the calling task to leave pairing mode. The current activity's beacon is paused meanwhile.
    ///
    /// Up to 8 devices' exchanges are answered at once (a further start is refused), so a stranger that starts and
    /// walks away holds up no one. Until a code is shown, a device that sends what does not parse or goes quiet for
    /// `pairingQuietLimit` is told so and dropped alone. The first exchange to reach its code is the pairing: the
    /// other devices are told that this device is pairing with another, new starts are refused, and that
    /// exchange's end (the code rejected on either side, an error, the finish) is the pairing's.
    public func acceptPairing(
        confirm: @escaping @Sendable (String) async -> Bool
    ) async throws(HandoffError) -> TrustStore {
        guard pairingInbox == nil else { throw HandoffError(.pairingFailed, "a pairing is already in progress") }
        let (stream, continuation) = AsyncStream<PairingInboxEvent>.makeStream()
        pairingInbox = continuation
        do throws(HandoffError) {
            do {
                try await radio.advertise(PairingBeacon.encode(name: trust.identity.name))
            } catch {
                throw HandoffError(.radioFailure, "the radio refused the pairing beacon", cause: error)
            }
            let store = try await answerPairing(stream, inbox: continuation, confirm: confirm)
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

    /// Answers the exchanges arriving on `stream`: feeds each event to a `PairingResponderDesk` and carries out its
    /// actions. One timer runs, only while some device's code is not shown yet, and ticks `inbox` at the desk's
    /// `nextDeadline`; the user is asked in a task of its own, whose answer comes back on `inbox`, so the devices
    /// still writing are answered meanwhile.
    private func answerPairing(_ stream: AsyncStream<PairingInboxEvent>,
                               inbox: AsyncStream<PairingInboxEvent>.Continuation,
                               confirm: @escaping @Sendable (String) async -> Bool)
        async throws(HandoffError) -> TrustStore {
        let (store, clock) = (trust, clock)
        var desk = PairingResponderDesk(quietLimit: configuration.pairingQuietLimit) { () throws(HandoffError) in
            try PairingResponder(store: store, clock: clock)
        }
        var timer: (deadline: HandoffInstant, task: Task<Void, Never>)?
        var asking: Task<Void, Never>?
        defer {
            timer?.task.cancel()
            asking?.cancel()
        }
        for await event in stream {
            var actions: [PairingResponderDesk.Action]
            switch event {
            case .write(let write):
                actions = desk.received(write, at: clock.now)
            case .tick:
                timer = nil
                actions = desk.tick(at: clock.now)
            case .answered(let confirmed):
                actions = desk.answered(confirmed)
            }
            while !actions.isEmpty {
                switch actions.removeFirst() {
                case .send(let message, let address, let mtu):
                    do {
                        try await sendPairing(message, to: address, mtu: mtu)
                    } catch {
                        actions = desk.unreachable(address, error) + actions
                    }
                case .refuse(let error, let address, let mtu):
                    await sendPairingError(error, session: address.session, to: address.central, mtu: mtu)
                case .show(let code, _):
                    asking = Task {
                        let confirmed = await confirm(code)
                        inbox.yield(.answered(confirmed))
                    }
                case .finish(let store):
                    return store
                case .fail(let error):
                    throw error
                }
            }
            if desk.nextDeadline != timer?.deadline {
                timer?.task.cancel()
                timer = desk.nextDeadline.map { deadline in
                    (deadline, Task {
                        do { try await clock.sleep(until: deadline) } catch { return }
                        inbox.yield(.tick)
                    })
                }
            }
        }
        throw HandoffError(.pairingFailed, "pairing mode ended before a device paired")
    }

    private func sendPairing(_ message: [UInt8], to address: PairingResponderDesk.Address,
                             mtu: Int) async throws(HandoffError) {
        guard let service else { throw HandoffError(.radioFailure, "the transfer service is not open; call start()") }
        let frames = try PairingFragments.split(message, session: address.session,
                                                maximumValue: WireProtocol.valueLength(forMTU: mtu), fromServer: true)
        for frame in frames {
            do {
                try await service.notify(frame.encoded(), to: address.central)
            } catch {
                throw HandoffError(.connectionUnavailable, "the other device left during pairing", cause: error)
            }
        }
    }

    private func sendPairingError(_ error: HandoffError, session: Nonce, to central: PeerAddress, mtu: Int) async {
        let room = WireProtocol.valueLength(forMTU: mtu) - TransferFrame.errorOverhead
        // Pairing runs between parties who share no key yet: its ERRORs carry no tag (Docs/protocol.md, "The gate").
        let frame = TransferFrame.error(context: ErrorContext(session), code: error.code.rawValue,
                                        tag: [UInt8](repeating: 0, count: TransferFrame.macLength), message: String(decoding: Array(error.message.utf8.prefix(max(room, 0))), as: UTF8.self))
        try? await service?.notify(frame.encoded(), to: central)
    }

    /// Pairs with `peer` (a `PairingCandidate`'s address) as the initiator, typically the new device. `confirm` is
    /// called with the 6-digit code, which the user compares with the other screen. When both sides confirmed,
    /// the new trust state is adopted and returned (save it).
    /// - Throws: `pairingFailed` (code rejected, tampering, different groups), `connectionUnavailable`,
    ///   `remoteApplicationTimedOut` after `timeout` without an answer.
    public func pair(with peer: PeerAddress, timeout: Duration = .seconds(60),
                     confirm: @escaping @Sendable (String) async -> Bool) async throws(HandoffError) -> TrustStore {
        let link: any RadioLink
        do {
            link = try await radio.connect(to: peer)
        } catch {
            throw HandoffError(.connectionUnavailable, "cannot connect to \(peer) to pair", cause: error)
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
                                        confirm: @Sendable (String) async -> Bool)
        async throws(HandoffError) -> TrustStore {
        let session = Nonce.random()
        var initiator = try PairingInitiator(store: await trust, clock: clock)
        var fragments = PairingFragments()
        var events = inbox.events.makeAsyncIterator()
        let maximumTicks = Int((timeout / configuration.stallInterval).rounded(.up)) + 1
        func send(_ message: [UInt8]) async throws(HandoffError) {
            for frame in try PairingFragments.split(message, session: session,
                                                    maximumValue: WireProtocol.valueLength(forMTU: link.mtu),
                                                    fromServer: false) {
                do {
                    try await link.write(frame.encoded())
                } catch {
                    throw HandoffError(.connectionUnavailable, "the other device left during pairing", cause: error)
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
                                       fragments: inout PairingFragments, ticks maximumTicks: Int)
        async throws(HandoffError) -> [UInt8] {
        var ticks = 0
        while let event = await events.next() {
            switch event {
            case .frame(let bytes):
                switch try TransferFrame.decode(bytes) {
                case .pair(session, let index, let count, let chunk, true):
                    if let message = try fragments.add(index: index, count: count, chunk: chunk) { return message }
                case .error(ErrorContext(session), let code, _, let message):
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
