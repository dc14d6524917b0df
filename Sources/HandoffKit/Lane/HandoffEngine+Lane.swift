import FoundationEssentials
import HandoffShared

/// The fast lane, receiving side (Docs/protocol.md §9): on a push's LANE-ASK, open a one-shot listener, offer its
/// addresses and port sealed under the transfer's lane key, and take the first connection that proves itself
/// as one more central of the transfer service. The push itself goes on as before: the sender announces it
/// again on the lane, proves it afresh, and this side's ACCEPT names the first byte it lacks.
extension HandoffEngine {
    /// A lane frame a central wrote: a push's LANE-ASK (this side receives the push and offers), or a continue's
    /// LANE-OFFER (this side is the source and connects). Returns what becomes of its writer (`Gate.Writer`): a
    /// lane frame that does not decode is written by no client of ours; every well-formed one keeps the link, since
    /// a member may ask or offer while this side's lane is off or the push has just ended.
    func handleLane(_ write: IncomingWrite) async -> Gate.Writer {
        guard let decoded = LaneFrame.decode(write.value) else { return .dropped }
        if case .offer(let id, _, _) = decoded {
            await connectLane(for: id, write)
            return .kept
        }
        await answerAsk(decoded, write)
        return .kept
    }

    /// A push's LANE-ASK: changes nothing unless it is bound to a live push, from the central the push is bound
    /// to, on a radio path (a lane is not offered over a lane).
    private func answerAsk(_ decoded: LaneFrame, _ write: IncomingWrite) async {
        guard let lane = configuration.fastLane, let service = service as? LaneService,
              write.transport != .tcp, case .ask(let id, let mac) = decoded,
              let session = share.sessions[id], session.central == write.central else { return }
        let keys = LaneKeys(transferKey: session.keys.transferKey(id), transferID: id)
        guard Sodium.constantTimeEqual(mac, keys.askMAC) else { return }
        // One listener per transfer: a new ASK (the sender is back on BLE, or its last attempt failed) replaces
        // an offer nobody proved themselves on.
        service.offers.withLock { $0.removeValue(forKey: id) }?.close()
        let listener: any LaneListener
        do {
            listener = try await lane.network.listen()
        } catch {
            // No lane here: the push goes on over BLE, as the sender expects when no offer comes.
            lane.report(.notOffered(transfer: id.description, reason: error.message))
            return
        }
        let endpoints = listener.endpoints.filter(lane.policy.admits)
        guard !endpoints.isEmpty else {
            listener.close()
            lane.report(.notOffered(transfer: id.description, reason: Self.noAddress(listener.endpoints.count)))
            return
        }
        service.offers.withLock { $0.updateValue(listener, forKey: id) }?.close()
        let ticket = Sodium.randomBytes(LaneOffer.ticketLength)
        let offer = LaneOffer(ticket: ticket, port: endpoints[0].port, addresses: endpoints.map(\.address))
        let clock = self.clock
        // The listener lives as long as the offer: until a connection proves itself, or `offerLifetime`.
        Task {
            do { try await clock.sleep(for: lane.offerLifetime) } catch {}
            listener.close()
            service.offers.withLock { offers in
                if offers[id] === listener { offers[id] = nil }
            }
        }
        Task {
            let won = Locked(false)
            for await connection in listener.connections {
                Task {
                    guard let reader = await LaneHandshake.admit(
                        connection, keys: keys, ticket: ticket, deadline: lane.helloDeadline, clock: clock,
                        claim: { won.withLock { won in defer { won = true }; return !won } }) else {
                        lane.report(.refused(transfer: id.description, remote: connection.remote))
                        return
                    }
                    lane.report(.admitted(transfer: id.description, remote: connection.remote))
                    listener.close()
                    service.offers.withLock { offers in if offers[id] === listener { offers[id] = nil } }
                    let central = PeerAddress("tcp:\(connection.remote)#\(ShareInbox.hexString(Sodium.randomBytes(4)))")
                    service.adopt(connection, reader: reader, as: central)
                }
            }
        }
        do {
            try await service.notify(keys.seal(offer), to: write.central)
            lane.report(.offered(transfer: id.description, addresses: endpoints.count, port: endpoints[0].port))
        } catch {
            lane.report(.notOffered(transfer: id.description, reason: "the offer could not be sent: \(error)"))
        }
    }

    /// Why no offer was made although the listener opened.
    static func noAddress(_ found: Int) -> String {
        "none of this machine's \(found) address(es) may be offered (loopback, link-local and multicast never are)"
    }

    /// A continue's LANE-OFFER: when it opens under the lane key of a transfer this source still holds, connect to
    /// the client, prove this side (LANE-HELLO), and take the connection as one more central: the client FETCHes
    /// there from the last byte it holds, and the stream goes on as over a channel.
    private func connectLane(for id: TransferID, _ write: IncomingWrite) async {
        guard let lane = configuration.fastLane, let service = service as? LaneService, write.transport != .tcp,
              let frame = LaneFrame.decode(write.value), transfers.fetching(id, upTo: 0) != nil else { return }
        let keys = LaneKeys(transferKey: self.keys.transferKey(source: trust.identity.id, transferID: id), transferID: id)
        guard let offer = keys.open(frame) else { return }
        // One connection attempt per transfer at a time: a replayed offer starts nothing while one runs.
        guard service.connecting.withLock({ $0.insert(id).inserted }) else { return }
        lane.report(.offerReceived(transfer: id.description, addresses: offer.addresses.count))
        let clock = self.clock
        Task {
            defer { _ = service.connecting.withLock { $0.remove(id) } }
            let connection: any LaneConnection, reader: LaneReader
            do throws(LaneError) {
                (connection, reader) = try await LaneHandshake.connect(offer, keys: keys, lane: lane, clock: clock)
            } catch {
                lane.report(.connectFailed(transfer: id.description, reason: error.message))
                return
            }
            lane.report(.connected(transfer: id.description, remote: connection.remote))
            let central = PeerAddress("tcp:\(connection.remote)#\(ShareInbox.hexString(Sodium.randomBytes(4)))")
            service.adopt(connection, reader: reader, as: central)
        }
    }
}
