import FoundationEssentials
import HandoffShared

/// Fetches one remote activity over the radio: request, header, metadata, approval, payload, with resumption
/// after loss or disconnection. A value type run once per continuation; it never touches engine state.
struct TransferClient: Sendable {
    /// Thrown by `approve` when the app declined the activity type.
    struct Declined: Error {
        let activityType: String
    }

    let radio: any Radio
    let keys: GroupKeys
    let configuration: HandoffConfiguration
    let remote: RemoteActivity
    /// What the DONE asks of the source.
    var requests: ContinuationRequests = []

    /// What arrived.
    struct Result: Sendable, Equatable {
        let activityType: String
        let payload: Data
    }

    /// What arrived, and the link that carried its last byte.
    struct Delivery: Sendable {
        let result: Result
        let transport: LinkTransport
    }

    /// Runs the transfer as one attempt at `remote.peer`, and says whether the peer proved to be the source: it did
    /// once the transfer's metadata record opened (sealed under a key derived from the group key, for a header of
    /// at least the version asked for), which is when `approve` is called, whatever happens next.
    func attempt(approve: @escaping @Sendable (String, TransferHeader) throws -> Void,
                 progress: (ContinuationProgress) -> Void) async
        -> HandoffEngine.Attempt<Delivery, any Error> {
        let proven = Locked(false)
        do {
            let delivery = try await run(approve: { type, header in
                proven.withLock { $0 = true }
                try approve(type, header)
            }, progress: progress)
            return HandoffEngine.Attempt(result: .success(delivery), proven: true)
        } catch {
            return HandoffEngine.Attempt(result: .failure(error), proven: proven.withLock { $0 })
        }
    }

    /// Runs the transfer. `approve` is called once the activity type and payload length are known, before any
    /// payload byte is fetched; it throws to stop. `progress` hears the payload's progress from the OPEN on, each
    /// time it changes. The decisions are `StateMachine`'s; this carries them out on the radio.
    func run(approve: @Sendable (String, TransferHeader) throws -> Void,
             progress: (ContinuationProgress) -> Void) async throws -> Delivery {
        var link = try await connect()
        defer { Task { [link] in await link.disconnect() } }
        var inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
        defer { inbox.close() }
        var events = inbox.events.makeAsyncIterator()
        var offerer: LaneOfferer?
        defer { offerer?.stop() }
        var machine = StateMachine(keys: keys, configuration: configuration, remote: remote,
                                   requestNonce: Nonce.random(), link: Self.facts(of: link))
        machine.requests = requests
        let request = machine.requestFrame   // the same bytes for the whole run (one nonce)
        var actions = machine.start()
        // A frame of another version is dropped at the gate like any other it cannot read; if the transfer then
        // times out, that is why, and it says so (it came from the source: a stranger cannot make it speak another).
        var otherVersion: UInt8?
        var reported: (received: Int, total: Int)?
        while true {
            var index = 0
            while index < actions.count {
                switch actions[index] {
                case .write(let frame):
                    // A failed write means the link is going down; its notifications end and the machine relinks.
                    try? await link.write(frame.encoded())
                case .approve(let type, let header):
                    try approve(type, header)
                    actions += machine.approved()
                    // A big payload may move to the fast lane (Docs/protocol.md §9): offer it to the source.
                    if offerer == nil, configuration.fastLane != nil {
                        let lane = LaneOfferer(
                            keys: LaneKeys(transferKey: keys.transferKey(source: remote.device.id,
                                                                         transferID: header.transferID),
                                           transferID: header.transferID),
                            settings: configuration.fastLane, clock: configuration.clock)
                        lane.watch(inbox)
                        lane.offer(on: link, remaining: header.streamLength - Int(header.metadataLength))
                        offerer = lane
                    }
                case .relink:
                    // Close the old link first: the radio opens no new link to a device while one is closing.
                    inbox.close()
                    await link.disconnect()
                    link = try await connect()
                    inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
                    events = inbox.events.makeAsyncIterator()
                    offerer?.watch(inbox)
                    actions += machine.relinked(Self.facts(of: link))
                case .finish(let result):
                    return Delivery(result: result, transport: link.transport)
                }
                index += 1
            }
            switch await events.next() {
            case .frame(let bytes):
                // The gate: an undecodable frame or an ERROR not bound to this session touches nothing.
                guard let frame = Gate.admitContinue(bytes, keys: keys, request: request) else {
                    if let version = bytes.first, version != WireProtocol.version { otherVersion = version }
                    actions = []
                    continue
                }
                actions = try machine.received(frame)
                if let now = machine.payloadProgress, reported.map({ $0 != now }) ?? true {
                    reported = now
                    progress(ContinuationProgress(receivedBytes: now.received, totalBytes: now.total,
                                                  transport: link.transport))
                }
            case .tick:
                let ticked = Swift.Result { () throws(HandoffError) in try machine.tick() }
                switch ticked {
                case .success(let next): actions = next
                case .failure(let error): throw Self.explained(error, otherVersion: otherVersion)
                }
            case .closed, nil:
                if let laneLink = offerer?.take() {
                    // The lane proved itself: leave BLE for it (no reconnection), and fetch from the last byte held.
                    inbox.close()
                    await link.disconnect()
                    link = laneLink
                    inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
                    events = inbox.events.makeAsyncIterator()
                    offerer?.watch(inbox)
                    actions = machine.relinked(Self.facts(of: link))
                    continue
                }
                actions = try machine.linkClosed()
            }
        }
    }

    /// A timeout after frames of another version arrived is a version mismatch, and says so.
    private static func explained(_ error: HandoffError, otherVersion: UInt8?) -> HandoffError {
        guard error.code == .remoteApplicationTimedOut, let otherVersion else { return error }
        return HandoffError(.protocolVersionMismatch, "the source device speaks wire protocol version \(otherVersion); "
                                + "this build speaks \(WireProtocol.version)")
    }

    private static func facts(of link: any RadioLink) -> StateMachine.Link {
        // A lane is reliable and ordered as a channel is: it takes the channel's windows.
        StateMachine.Link(maximumFrameLength: link.maximumFrameLength,
                          isChannel: link.transport.kind == .l2cap || link.transport.kind == .tcp)
    }

    // MARK: - Steps

    private func connect() async throws -> any RadioLink {
        let link: any RadioLink
        do {
            link = try await radio.connect(to: remote.peer)
        } catch {
            throw HandoffError(.connectionUnavailable, "cannot connect to \(remote.device.name)", cause: error)
        }
        guard link.mtu >= WireProtocol.minimumMTU,
              link.maximumFrameLength >= WireProtocol.valueLength(forMTU: WireProtocol.minimumMTU) else {
            await link.disconnect()
            throw HandoffError(.radioFailure, "the link's ATT MTU is \(link.mtu) and its frames at most "
                                   + "\(link.maximumFrameLength) bytes; the protocol needs an MTU of at least "
                                   + "\(WireProtocol.minimumMTU)")
        }
        return link
    }
}
