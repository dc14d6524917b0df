import HandoffShared

/// The fast lane, sending side of one push (Docs/protocol.md §9): while the push runs on a radio link with at
/// least `threshold` bytes to go, asks for the lane (LANE-ASK, again every `retryInterval` until it is open);
/// on an offer that opens under the lane key, connects and proves itself; once the receiver answered, holds the
/// proven link and ends the radio link's inbox, so the push's reconnection takes the lane and announces itself
/// there. The receiver's ACCEPT then names the first byte it lacks: nothing it acknowledged is sent again.
final class LaneSwitch: Sendable {
    private struct State {
        var asker: Task<Void, Never>?
        var askingOn: PeerAddress?
        var connecting = false
        var ready: LaneLink?
        var stopped = false
    }

    private let keys: LaneKeys
    private let settings: FastLane?
    private let clock: any HandoffClock
    private let state = Locked(State())

    init(keys: LaneKeys, settings: FastLane?, clock: any HandoffClock) {
        self.keys = keys
        self.settings = settings
        self.clock = clock
    }

    /// Whether a proven lane link waits to be taken.
    var isReady: Bool { state.withLock { $0.ready != nil } }

    /// The proven lane link, once.
    func take() -> (any RadioLink)? {
        let ready = state.withLock { state in
            defer { state.ready = nil }
            return state.ready
        }
        if let ready { settings?.report(.switched(transfer: keys.transferID.description, remote: ready.connection.remote)) }
        return ready
    }

    /// Asks for the lane on `link` (a radio link) while `remaining()` bytes are at least the threshold.
    func ask(on link: any RadioLink, remaining: @escaping @Sendable () -> Int) {
        guard let settings, link.transport.kind != .tcp else { return }
        let ask = LaneFrame.ask(transferID: keys.transferID, mac: keys.askMAC).encoded()
        let clock = self.clock
        state.withLock { state in
            guard !state.stopped, state.askingOn != link.peer || state.asker == nil else { return }
            state.asker?.cancel()
            state.askingOn = link.peer
            let shared = self.state
            state.asker = Task {
                while !Task.isCancelled {
                    let wanted = shared.withLock { !$0.connecting && $0.ready == nil }
                    if wanted, remaining() >= settings.threshold { try? await link.write(ask) }
                    do { try await clock.sleep(for: settings.retryInterval) } catch { return }
                }
            }
        }
    }

    /// Takes `bytes` when it is a lane frame (true), and starts the move when it is this push's offer.
    func consider(_ bytes: [UInt8], on link: any RadioLink, inbox: LinkInbox) -> Bool {
        guard LaneFrame.claims(bytes) else { return false }
        guard let settings, link.transport.kind != .tcp, let frame = LaneFrame.decode(bytes),
              let offer = keys.open(frame) else { return true }
        let start = state.withLock { state -> Bool in
            guard !state.stopped, !state.connecting, state.ready == nil else { return false }
            state.connecting = true
            return true
        }
        guard start else { return true }
        let (keys, clock, state) = (keys, clock, state)
        let transfer = keys.transferID.description
        settings.report(.offerReceived(transfer: transfer, addresses: offer.addresses.count))
        Task {
            do throws(LaneError) {
                let (connection, reader) = try await LaneHandshake.connect(offer, keys: keys, lane: settings, clock: clock)
                settings.report(.connected(transfer: transfer, remote: connection.remote))
                let taken = state.withLock { state -> Bool in
                    state.connecting = false
                    guard !state.stopped else { return false }
                    state.ready = LaneLink(connection: connection, reader: reader)
                    state.asker?.cancel()
                    state.asker = nil
                    state.askingOn = nil
                    return true
                }
                if taken { inbox.close() } else { connection.close() }
            } catch {
                settings.report(.connectFailed(transfer: transfer, reason: error.message))
                state.withLock { $0.connecting = false }   // the asker asks again after `retryInterval`
            }
        }
        return true
    }

    /// The push's link closed: stop asking on it (the next radio link asks anew).
    func linkClosed() {
        state.withLock { state in
            state.asker?.cancel()
            state.asker = nil
            state.askingOn = nil
        }
    }

    /// Ends asking and closes a lane link nobody took.
    func stop() {
        let leftover = state.withLock { state -> LaneLink? in
            state.stopped = true
            state.asker?.cancel()
            state.asker = nil
            defer { state.ready = nil }
            return state.ready
        }
        leftover?.connection.close()
    }
}

/// The fast lane, receiving side of a continue (Docs/protocol.md §9): the client, which receives the payload,
/// offers. Once the app approved a payload of at least `threshold` bytes, it opens a one-shot listener, writes
/// LANE-OFFER to the source over BLE (sealed under the transfer's lane key), and takes the first connection that
/// proves itself (LANE-HELLO within `helloDeadline`). It then ends the radio link's inbox; the client moves to
/// the lane and fetches from the last byte it holds. A source built before the lane answers the offer with an
/// unbound ERROR, which the client drops; the listener then closes after `offerLifetime`.
final class LaneOfferer: Sendable {
    private struct State {
        var ready: LaneLink?
        var listener: (any LaneListener)?
        var inbox: LinkInbox?
        var offered = false
        var stopped = false
    }

    private let keys: LaneKeys
    private let settings: FastLane?
    private let clock: any HandoffClock
    private let state = Locked(State())

    init(keys: LaneKeys, settings: FastLane?, clock: any HandoffClock) {
        self.keys = keys
        self.settings = settings
        self.clock = clock
    }

    /// The inbox of the link the client reads now (closed when the lane is ready).
    func watch(_ inbox: LinkInbox) {
        state.withLock { $0.inbox = inbox }
    }

    /// Offers the lane once, on `link`, when `remaining` bytes are at least the threshold.
    func offer(on link: any RadioLink, remaining: Int) {
        guard let settings, link.transport.kind != .tcp, remaining >= settings.threshold,
              state.withLock({ state in defer { state.offered = true }; return !state.offered && !state.stopped })
        else { return }
        let (keys, clock, state) = (keys, clock, state)
        let transfer = keys.transferID.description
        Task {
            let listener: any LaneListener
            do throws(LaneError) { listener = try await settings.network.listen() } catch {
                settings.report(.notOffered(transfer: transfer, reason: error.message))
                return
            }
            let endpoints = listener.endpoints.filter(settings.policy.admits)
            let kept = state.withLock { state -> Bool in
                guard !state.stopped, !endpoints.isEmpty else { return false }
                state.listener = listener
                return true
            }
            guard kept else {
                listener.close()
                if endpoints.isEmpty {
                    settings.report(.notOffered(transfer: transfer,
                                                reason: HandoffEngine.noAddress(listener.endpoints.count)))
                }
                return
            }
            let ticket = Sodium.randomBytes(LaneOffer.ticketLength)
            Task {
                do { try await clock.sleep(for: settings.offerLifetime) } catch {}
                listener.close()
            }
            let won = Locked(false)
            Task {
                for await connection in listener.connections {
                    Task {
                        guard let reader = await LaneHandshake.admit(
                            connection, keys: keys, ticket: ticket, deadline: settings.helloDeadline, clock: clock,
                            claim: { won.withLock { won in defer { won = true }; return !won } }) else {
                            settings.report(.refused(transfer: transfer, remote: connection.remote))
                            return
                        }
                        settings.report(.admitted(transfer: transfer, remote: connection.remote))
                        listener.close()
                        let inbox = state.withLock { state -> LinkInbox? in
                            guard !state.stopped else { return nil }
                            state.ready = LaneLink(connection: connection, reader: reader)
                            return state.inbox
                        }
                        if let inbox { inbox.close() } else { connection.close() }
                    }
                }
            }
            let offer = LaneOffer(ticket: ticket, port: endpoints[0].port, addresses: endpoints.map(\.address))
            do {
                try await link.write(keys.seal(offer))
                settings.report(.offered(transfer: transfer, addresses: endpoints.count, port: endpoints[0].port))
            } catch {
                settings.report(.notOffered(transfer: transfer, reason: "the offer could not be sent: \(error)"))
            }
        }
    }

    /// The proven lane link, once.
    func take() -> (any RadioLink)? {
        let ready = state.withLock { state in
            defer { state.ready = nil }
            return state.ready
        }
        if let ready { settings?.report(.switched(transfer: keys.transferID.description, remote: ready.connection.remote)) }
        return ready
    }

    /// Closes the listener and a lane link nobody took.
    func stop() {
        let (listener, leftover) = state.withLock { state -> ((any LaneListener)?, LaneLink?) in
            state.stopped = true
            defer { state.ready = nil; state.listener = nil }
            return (state.listener, state.ready)
        }
        listener?.close()
        leftover?.connection.close()
    }
}
