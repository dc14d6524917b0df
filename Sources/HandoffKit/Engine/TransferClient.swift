import Foundation

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

    /// What arrived.
    struct Result: Sendable {
        let activityType: String
        let payload: Data
    }

    /// Runs the transfer. `approve` is called once the activity type and payload length are known, before any
    /// payload byte is fetched; it throws to stop.
    func run(approve: @Sendable (String, TransferHeader) throws -> Void) async throws -> Result {
        var state = State()
        var link = try await connect()
        defer { Task { [link] in await link.disconnect() } }
        var inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
        defer { inbox.close() }
        let requestNonce = Nonce.random()
        try await sendRequest(on: link, nonce: requestNonce)

        while true {
            var iterator = inbox.events.makeAsyncIterator()
            eventLoop: while let event = await iterator.next() {
                switch event {
                case .frame(let bytes):
                    let frame = try TransferFrame.decode(bytes)
                    if let done = try await handle(frame, state: &state, link: link, requestNonce: requestNonce,
                                                   approve: approve) {
                        try? await link.write(TransferFrame.done(transferID: done.transferID, mac: done.mac).encoded())
                        return Result(activityType: done.activityType, payload: Data(state.payload))
                    }
                case .tick:
                    guard state.progressSinceTick else {
                        state.stalls += 1
                        if state.stalls > configuration.maximumStalls {
                            throw HandoffError(.remoteApplicationTimedOut,
                                               "the source device stopped answering (no progress after "
                                                   + "\(state.stalls) waits of \(configuration.stallInterval))")
                        }
                        // Asked twice in vain on this link: try once on a new one. (In the VM a channel right
                        // after a bluetoothd restart took the source's answers in the kernel and never gave them
                        // to us; the source was fine.)
                        if state.stalls >= 2, !state.relinked {
                            state.relinked = true
                            break eventLoop
                        }
                        try await askAgain(on: link, state: &state, requestNonce: requestNonce)
                        continue
                    }
                    state.progressSinceTick = false
                case .closed:
                    break eventLoop
                }
            }
            // The link dropped, or stayed silent (above): close it (the radio opens no new link to a device while
            // an old one is still closing), reconnect and resume from the last byte received.
            inbox.close()
            await link.disconnect()
            state.reconnects += 1
            guard state.reconnects <= configuration.maximumReconnects else {
                throw HandoffError(.connectionUnavailable, "the source device went away mid-transfer and did not "
                                       + "come back after \(configuration.maximumReconnects) reconnection attempts")
            }
            link = try await connect()
            inbox = LinkInbox(link: link, tick: configuration.stallInterval, clock: configuration.clock)
            state.lastOffset = nil
            try await askAgain(on: link, state: &state, requestNonce: requestNonce)
        }
    }

    // MARK: - State

    struct State {
        var header: TransferHeader?
        var sealer: TransferSealer?
        var activityType: String?
        var approved = false
        var received: [UInt8] = []
        var payload: [UInt8] = []
        var nextRecord = 0
        var refetchPending = false
        /// The offset of the last DATA frame, to tell a new stream from the rest of an old one; nil when no old
        /// stream can still be sending (none yet, its window arrived whole, or the link is new).
        var lastOffset: Int?
        /// The end of the range last fetched (the current window).
        var requestedEnd = 0
        var progressSinceTick = false
        var stalls = 0
        /// Whether this run of stalls already moved to a new link.
        var relinked = false
        var reconnects = 0

        /// Something new arrived: the stall count and the relink start over.
        mutating func progressed() {
            progressSinceTick = true
            stalls = 0
            relinked = false
        }

        /// End of the current phase: the metadata record until approval, then the whole stream.
        var phaseEnd: Int {
            guard let header else { return 0 }
            return approved ? header.streamLength : Int(header.metadataLength)
        }
    }

    struct Completion {
        let transferID: TransferID
        let mac: [UInt8]
        let activityType: String
    }

    // MARK: - Steps

    private func connect() async throws -> any RadioLink {
        let link: any RadioLink
        do {
            link = try await radio.connect(to: remote.peer)
        } catch {
            throw HandoffError(.connectionUnavailable, "cannot connect to \(remote.device.name) (\(error))")
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

    private func sendRequest(on link: any RadioLink, nonce: Nonce) async throws {
        let mac = keys.requestMAC(sequence: remote.sequence, nonce: nonce)
        try await write(.request(sequence: remote.sequence, nonce: nonce, mac: mac), on: link)
    }

    private func write(_ frame: TransferFrame, on link: any RadioLink) async throws {
        do {
            try await link.write(frame.encoded())
        } catch {
            // A failed write means the link is going down; the notification stream will end and we resume.
        }
    }

    private func askAgain(on link: any RadioLink, state: inout State, requestNonce: Nonce) async throws {
        guard let header = state.header else {
            try await sendRequest(on: link, nonce: requestNonce)
            return
        }
        state.refetchPending = true
        let from = state.received.count
        guard from < state.phaseEnd else { return }
        try await fetch(header, from: from, state: &state, on: link)
    }

    /// Asks for the window starting at `from`: `configuration.fetchWindow` bytes (`channelFetchWindow` on a
    /// channel) rounded down to whole DATA frames of this link (so no window ends in a short frame), never past
    /// the phase.
    private func fetch(_ header: TransferHeader, from: Int, state: inout State, on link: any RadioLink) async throws {
        let frame = max(link.maximumFrameLength - TransferFrame.dataOverhead, 1)
        let asked = link.transport.kind == .l2cap ? configuration.channelFetchWindow : configuration.fetchWindow
        let window = asked > 0 ? max(asked / frame, 1) * frame : 0
        let end = window > 0 ? min(from + window, state.phaseEnd) : state.phaseEnd
        state.requestedEnd = end
        try await write(.fetch(transferID: header.transferID, from: UInt32(from), to: UInt32(end)), on: link)
    }

    private func handle(_ frame: TransferFrame, state: inout State, link: any RadioLink, requestNonce: Nonce,
                        approve: @Sendable (String, TransferHeader) throws -> Void) async throws -> Completion? {
        switch frame {
        case .open(let header, let nonce):
            guard nonce == requestNonce, state.header == nil else { return nil }
            guard header.streamLength >= Int(header.metadataLength) else {
                throw HandoffError(.corruptPayload, "the transfer header is inconsistent")
            }
            state.header = header
            state.sealer = TransferSealer(header: header, keys: keys, source: remote.device.id)
            state.progressed()
            return nil
        case .error(let context, let code, let message):
            let transfer = state.header.map { ErrorContext($0.transferID) }
            guard context == ErrorContext(requestNonce) || context == transfer || context == .zero else { return nil }
            throw HandoffError(HandoffError.Code(rawValue: code), "the source device refused: \(message)")
        case .data(let id, let offset, let bytes):
            guard let header = state.header, id == header.transferID else { return nil }
            return try await accept(offset: Int(offset), bytes: bytes, state: &state, link: link, approve: approve)
        case .request, .fetch, .done, .pair, .rekey, .rekeyApplied:
            return nil
        }
    }

    private func accept(offset: Int, bytes: [UInt8], state: inout State, link: any RadioLink,
                        approve: @Sendable (String, TransferHeader) throws -> Void) async throws -> Completion? {
        guard let header = state.header, let sealer = state.sealer else { return nil }
        let have = state.received.count
        // Within one stream offsets only grow, and every stream starts at or before `have`: a frame at or before
        // the one before it (or the first since no older stream can still be sending) opens a new stream.
        let fresh = state.lastOffset.map { offset <= $0 } ?? true
        state.lastOffset = offset
        if offset > have {
            // A gap. Ask again from `have` once; while that is pending, the rest of the stream it replaces is
            // stale, and asking for each of its frames would restart the source each time. But a new stream that
            // opens past `have` lost its first frames too: ask at once rather than wait for a tick.
            if !state.refetchPending || fresh, have < state.phaseEnd {
                state.refetchPending = true
                try await fetch(header, from: have, state: &state, on: link)
            }
            return nil
        }
        let end = min(offset + bytes.count, state.phaseEnd)
        guard end > have else { return nil }
        state.received += bytes[(have - offset)..<(end - offset)]
        state.refetchPending = false
        state.progressed()

        // Open every record that is now complete.
        while state.nextRecord <= header.recordCount {
            let range = header.range(ofRecord: state.nextRecord)
            guard state.received.count >= range.upperBound else { break }
            let sealed = Array(state.received[range])
            if state.nextRecord == 0 {
                guard let type = sealer.openMetadata(sealed) else {
                    throw HandoffError(.corruptPayload, "the transfer's metadata failed authentication",
                                       activityType: remote.activityType)
                }
                if let expected = remote.activityType, expected != type {
                    throw HandoffError(.corruptPayload, "the transfer carries type \(type), not the advertised one",
                                       activityType: expected)
                }
                state.activityType = type
                try approve(type, header)
                state.approved = true
                if header.recordCount > 0 {
                    state.refetchPending = true
                    state.lastOffset = nil
                    try await fetch(header, from: Int(header.metadataLength), state: &state, on: link)
                }
            } else {
                guard let plain = sealer.openRecord(state.nextRecord, sealed) else {
                    throw HandoffError(.corruptPayload, "payload record \(state.nextRecord) of "
                                           + "\(header.recordCount) failed authentication", activityType: state.activityType)
                }
                state.payload += plain
            }
            state.nextRecord += 1
        }
        if state.approved, state.nextRecord > header.recordCount, let type = state.activityType {
            return Completion(transferID: header.transferID, mac: sealer.doneMAC(), activityType: type)
        }
        // The window is in: ask for the next one (one round trip per window keeps the source's queue short).
        if state.approved, state.received.count == state.requestedEnd, state.requestedEnd < state.phaseEnd {
            state.refetchPending = true
            state.lastOffset = nil
            try await fetch(header, from: state.requestedEnd, state: &state, on: link)
        }
        return nil
    }
}

