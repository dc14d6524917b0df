import FoundationEssentials
import HandoffShared

/// The sending side of one push: connects to the receiver's transfer service, announces the stream (PUSH), writes
/// it from wherever the receiver says it stands (ACCEPT), and returns when the receiver confirms the item is stored
/// (DONE). It resumes after a drop from the receiver's last byte, and re-announces when nothing moves. A value
/// type run once per push attempt; it never touches engine state.
struct ShareSender: Sendable {
    let radio: any Radio
    let peer: PeerAddress
    let receiver: TrustedDevice
    let senderID: UUID
    let keys: ShareKeys
    let configuration: HandoffConfiguration
    /// Told the path of each link the push takes (BLE's, then the fast lane's when it opens).
    var onPath: @Sendable (LinkTransport) -> Void = { _ in }

    /// Bytes of the sealed stream the receiver has acknowledged or the sender has written, for progress.
    private final class Position: Sendable {
        let sent = Locked(0)
        let moved = Locked(false)
    }

    /// The largest frame this link takes. Everything the sender writes is cut to it, so the push uses the whole
    /// frame of whatever link the radio gives: an ATT value at the MTU on GATT, a whole SDU on an L2CAP channel.
    static func frameLimit(of link: any RadioLink) -> Int {
        link.maximumFrameLength
    }

    /// Runs the push of `stream` as one attempt at `peer`. The peer proved to be the receiver only when the push
    /// succeeded: the receiver's DONE is the one frame of a push that carries the pairwise key's MAC for this
    /// transfer (a CHALLENGE or an ACCEPT carries none, and an ERROR may be a stranger's echo of what we wrote).
    func attempt(_ stream: ShareStream, progress: @escaping @Sendable (Int, Int) -> Void) async
        -> HandoffEngine.Attempt<Void, HandoffError> {
        do throws(HandoffError) {
            try await run(stream, progress: progress)
            return HandoffEngine.Attempt(result: .success(()), proven: true)
        } catch {
            return HandoffEngine.Attempt(result: .failure(error), proven: false)
        }
    }

    /// Runs the push of `stream`. `progress(sent, total)` reports sealed-stream bytes written.
    func run(_ stream: ShareStream, progress: @escaping @Sendable (Int, Int) -> Void) async throws(HandoffError) {
        let header = stream.header
        let id = header.transferID
        let total = header.streamLength
        let position = Position()
        var reconnects = 0
        var stalls = 0
        var writer: Task<Void, Never>?
        defer { writer?.cancel() }
        let lane = LaneSwitch(keys: LaneKeys(transferKey: keys.transferKey(id), transferID: id),
                              settings: configuration.fastLane, clock: configuration.clock)
        defer { lane.stop() }
        var link = try await connect(lane)
        var inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
        defer { inbox.close() }
        let push = ShareFrame.push(transferID: id, sender: senderID.bytes, header: header,
                                   mac: keys.pushMAC(transferID: id, sender: senderID, header: header)).encoded()
        // PUSH goes out beside the loop, never in it: on a link whose peer is gone a write can wait for credits
        // for ever (behind the writer's DATA, in call order), and the loop must go on ticking to give up.
        var announcer = Self.announce(push, on: link)
        defer { announcer.cancel() }
        var provers: [Task<Void, Never>] = []
        defer { for prover in provers { prover.cancel() } }
        // The lane link's first ACCEPT: when, and from which byte (what the lane carried is counted from there).
        var onLane: (since: HandoffInstant, from: Int)?
        var laneStalled = false
        while true {
            for await event in inbox.events {
                switch event {
                case .frame(let bytes):
                    // A lane offer (sealed under this transfer's lane key) starts the move to the fast lane.
                    if lane.consider(bytes, on: link, inbox: inbox) { continue }
                    // The gate: an undecodable frame or a PUSH-ERROR not bound to this push touches nothing.
                    guard let frame = Gate.admitPush(bytes, keys: keys, written: [push]) else { continue }
                    switch frame {
                    case .challenge(id, let challenge):
                        // Prove the push is fresh. Challenges to other centrals reach us too (notifications go to
                        // every subscriber); the receiver drops a proof that answers another's.
                        provers.append(Self.announce(ShareFrame.proof(transferID: id, mac: keys.proofMAC(
                            transferID: id, challenge: challenge)).encoded(), on: link))
                    case .accept(id, let offset):
                        stalls = 0
                        if link.transport.kind == .tcp, onLane == nil { onLane = (configuration.clock.now, Int(offset)) }
                        if let writer { writer.cancel(); await writer.value }
                        writer = startWriting(stream, from: Int(offset), on: link, position: position, progress: progress)
                        lane.ask(on: link, remaining: { total - position.sent.value })
                    case .done(id, let mac):
                        guard Sodium.constantTimeEqual(mac, keys.doneMAC(id)) else {
                            await link.disconnect()
                            throw HandoffError(.corruptPayload, "\(receiver.name)'s confirmation failed authentication")
                        }
                        await link.disconnect()
                        reportLane(onLane, id, upTo: total)
                        progress(total, total)
                        return
                    case .error(id, let code, _, let message):
                        await link.disconnect()
                        throw HandoffError(HandoffError.Code(rawValue: code), "\(receiver.name) refused: \(message)")
                    default:
                        continue
                    }
                case .tick:
                    if position.moved.withLock({ moved in defer { moved = false }; return moved }) {
                        stalls = 0
                        continue
                    }
                    stalls += 1
                    if link.transport.kind == .tcp {
                        // A lane is reliable and ordered: what was written arrives unless the connection breaks.
                        // Announcing again would have the receiver's ACCEPT restart the writer behind the bytes
                        // still in the sockets' buffers, which then cross the network twice (tens of MB on a fast
                        // link). A lane that moves nothing for two waits in a row has lost its network (a link
                        // taken down sends no reset): leave it for BLE, where the ACCEPT says where to resume.
                        if stalls >= 2 {
                            laneStalled = true
                            inbox.close()
                        }
                        continue
                    }
                    if stalls > configuration.maximumStalls {
                        await link.disconnect()
                        throw HandoffError(.remoteApplicationTimedOut, "\(receiver.name) stopped answering (no "
                                               + "progress after \(stalls) waits of \(configuration.stallInterval))")
                    }
                    announcer.cancel()
                    announcer = Self.announce(push, on: link)   // the receiver answers with where it stands
                case .closed:
                    break
                }
                if case .closed = event { break }
            }
            // The link dropped: close it, reconnect and announce again; the receiver's ACCEPT says where to
            // resume. A dropped link is still the radio's until it is disconnected: BlueZ's opens no new link to
            // the device before that (its device lease), so a reconnect on a link left open would wait for ever.
            writer?.cancel()
            inbox.close()
            lane.linkClosed()
            await link.disconnect()
            if Task.isCancelled {
                throw HandoffError(.handoffFailed, "the push to \(receiver.name) was cancelled")
            }
            if link.transport.kind == .tcp {
                reportLane(onLane, id, upTo: position.sent.value)
                configuration.fastLane?.report(.fellBack(
                    transfer: id.description,
                    reason: laneStalled ? "the lane moved nothing for 2 waits of \(configuration.stallInterval) (its "
                        + "network went away)" : "the lane's connection closed"))
                onLane = nil
                laneStalled = false
            }
            // Moving to the fast lane, or back to BLE when the lane's network went away, is no reconnection of
            // the radio: it does not count against `maximumReconnects`.
            if !lane.isReady && link.transport.kind != .tcp { reconnects += 1 }
            guard reconnects <= configuration.maximumReconnects else {
                throw HandoffError(.connectionUnavailable, "\(receiver.name) went away mid-transfer and did not come "
                                       + "back after \(configuration.maximumReconnects) reconnection attempts")
            }
            link = try await connect(lane)
            inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
            stalls = 0
            announcer.cancel()
            announcer = Self.announce(push, on: link)
        }
    }

    /// Reports what the lane link that took its first ACCEPT at `onLane` carried, up to byte `end`.
    private func reportLane(_ onLane: (since: HandoffInstant, from: Int)?, _ id: TransferID, upTo end: Int) {
        guard let onLane, let lane = configuration.fastLane else { return }
        lane.report(.carried(transfer: id.description, bytes: max(0, end - onLane.from),
                             duration: onLane.since.duration(to: configuration.clock.now)))
    }

    /// Writes PUSH on `link` in a task of its own (see `run`).
    private static func announce(_ push: [UInt8], on link: any RadioLink) -> Task<Void, Never> {
        Task { try? await link.write(push) }
    }

    /// Writes `from..<end` of the stream as DATA frames, each filling one frame of the link.
    private func startWriting(_ stream: ShareStream, from: Int, on link: any RadioLink, position: Position,
                              progress: @escaping @Sendable (Int, Int) -> Void) -> Task<Void, Never> {
        let total = stream.header.streamLength
        let chunk = max(Self.frameLimit(of: link) - ShareFrame.dataOverhead, 1)
        return Task {
            var offset = min(from, total)
            position.sent.withLock { $0 = offset }
            position.moved.withLock { $0 = true }
            progress(offset, total)
            while offset < total, !Task.isCancelled {
                let end = min(offset + chunk, total)
                guard let frame = try? stream.dataFrame(offset..<end) else { return }
                do {
                    try await link.write(frame)
                } catch {
                    return   // the link is going down; the notification stream ends and the push resumes
                }
                offset = end
                position.sent.withLock { $0 = offset }
                position.moved.withLock { $0 = true }
                progress(offset, total)
            }
        }
    }

    private func connect(_ lane: LaneSwitch) async throws(HandoffError) -> any RadioLink {
        if let ready = lane.take() {
            onPath(ready.transport)
            return ready
        }
        let link = try await connectRadio()
        onPath(link.transport)
        return link
    }

    private func connectRadio() async throws(HandoffError) -> any RadioLink {
        let link: any RadioLink
        do {
            link = try await radio.connect(to: peer)
        } catch {
            throw HandoffError(.connectionUnavailable, "cannot connect to \(receiver.name)", cause: error)
        }
        guard link.mtu >= WireProtocol.minimumMTU else {
            await link.disconnect()
            throw HandoffError(.radioFailure, "the link's ATT MTU is \(link.mtu); the protocol needs at least "
                                   + "\(WireProtocol.minimumMTU)")
        }
        return link
    }
}
