import FoundationEssentials

extension TransferClient {
    /// The transfer client's decisions, without I/O: it is told what the link and the tick report and returns what
    /// to do. It reads no clock (a stall is a `tick()` that found no progress since the one before) and draws no
    /// random numbers (the request's nonce is given), so a test drives a whole transfer, its losses, stalls and
    /// reconnections with calls alone. `TransferClient.run` carries the actions out.
    ///
    /// The order of a transfer: `start(on:)` asks for the activity (REQUEST); the source's CHALLENGE is answered
    /// (PROVE), and its OPEN names the
    /// transfer, and the client fetches the metadata record; once it opens, `.approve` asks the app, and
    /// `approved()` fetches the payload, a window at a time. A gap asks again from the first missing byte; a
    /// second stall in a row moves to a new link once (`.relink`), as does a closed link; the last record sends
    /// DONE and `.finish`es.
    ///
    /// Its state is a ``Phase`` carrying what each phase knows (nothing but the REQUEST, then the ``Stream`` the OPEN
    /// named), and ``Liveness``, the stall and relink counts that hold in every phase.
    struct StateMachine: Sendable {
        /// What the driver does, in order.
        enum Action: Sendable, Equatable {
            /// Write this frame on the current link. A failed write is not an error: the link is going down, and
            /// `linkClosed()` follows.
            case write(TransferFrame)
            /// Ask the app whether to go on with this activity type and payload; call `approved()` if so, and stop
            /// otherwise. No payload byte is fetched before.
            case approve(activityType: String, header: TransferHeader)
            /// Close the link and open a new one to the same device, then call `relinked(_:)`.
            case relink
            /// The transfer is complete and verified.
            case finish(Result)
        }

        /// What the machine needs to know of a link.
        struct Link: Sendable, Equatable {
            /// The longest frame the link carries (`RadioLink.maximumFrameLength`).
            var maximumFrameLength: Int
            /// Whether it is an L2CAP channel, which fetches `channelFetchWindow` at a time.
            var isChannel: Bool
        }

        private let keys: GroupKeys
        private let configuration: HandoffConfiguration
        private let remote: RemoteActivity
        private let requestNonce: Nonce
        private var link: Link
        private var phase = Phase.requesting
        private var liveness = Liveness()
        /// What the DONE asks of the source (none: a plain DONE).
        var requests: ContinuationRequests = []

        /// - Parameters:
        ///   - remote: the activity to fetch, as its beacon announced it.
        ///   - requestNonce: the REQUEST's nonce (`Nonce.random()` in use); the OPEN must echo it.
        init(keys: GroupKeys, configuration: HandoffConfiguration, remote: RemoteActivity, requestNonce: Nonce,
             link: Link) {
            self.keys = keys
            self.configuration = configuration
            self.remote = remote
            self.requestNonce = requestNonce
            self.link = link
        }

        /// How many times the client moved to a new link so far.
        var reconnects: Int { liveness.reconnects }

        /// How far the payload has got, from the OPEN on: bytes of it received of its length. The sealed payload
        /// received counts in proportion to the plaintext, so it ends exactly at the length; nil before the OPEN.
        var payloadProgress: (received: Int, total: Int)? {
            guard case .receiving(let stream) = phase else { return nil }
            let header = stream.header
            let total = Int(header.payloadLength)
            let sealed = header.streamLength - Int(header.metadataLength)
            guard sealed > 0 else { return (0, total) }
            let part = max(0, stream.received.count - Int(header.metadataLength))
            return (min(total, part * total / sealed), total)
        }

        /// The REQUEST this client writes (the same bytes every time): the one frame a source may refuse without a
        /// key we share, so the one whose digest binds such a refusal to us (`Gate.admitContinue`).
        var requestFrame: [UInt8] {
            guard case .write(let frame) = request() else { return [] }
            return frame.encoded()
        }

        /// The first link is open: ask for the activity.
        func start() -> [Action] {
            [request()]
        }

        /// A frame arrived on the link.
        /// - Throws: the source's ERROR for this request or transfer, or `corruptPayload` when what arrived does
        ///   not authenticate or names another activity type.
        mutating func received(_ frame: TransferFrame) throws(HandoffError) -> [Action] {
            switch frame {
            case .challenge(let nonce, let challenge):
                // Prove the request fresh. Challenges to other centrals for our nonce (a stranger who replays our
                // REQUEST) reach us too; the source drops a proof that answers another's. Not progress: only what
                // our own challenge brings is.
                guard nonce == requestNonce, case .requesting = phase else { return [] }
                return [.write(.prove(nonce: nonce, mac: keys.proofMAC(nonce: nonce, challenge: challenge)))]
            case .open(let header, let nonce):
                // The OPEN carries no MAC: its nonce only ties it to our REQUEST. A source seals every transfer
                // for the newest sequence it serves, never an older one than was asked; an older header is a
                // recorded transfer replayed (by a stranger at an address tried after a rotation), and is dropped.
                guard nonce == requestNonce, case .requesting = phase, header.sequence >= remote.sequence else {
                    return []
                }
                guard header.streamLength >= Int(header.metadataLength) else {
                    throw HandoffError(.corruptPayload, "the transfer header is inconsistent")
                }
                phase = .receiving(Stream(
                    header: header, sealer: TransferSealer(header: header, keys: keys, source: remote.device.id)))
                liveness.progressed()
                return []
            case .error(let context, let code, _, let message):
                // The tag was checked at the gate (`Gate.admitContinue`); the context says whether it is ours.
                var transfer: ErrorContext?
                if case .receiving(let stream) = phase { transfer = ErrorContext(stream.header.transferID) }
                guard context == ErrorContext(requestNonce) || context == transfer else { return [] }
                throw HandoffError(HandoffError.Code(rawValue: code), "the source device refused: \(message)")
            case .data(let id, let offset, let bytes):
                guard case .receiving(let stream) = phase, id == stream.header.transferID else { return [] }
                return try accept(offset: Int(offset), bytes: bytes)
            case .request, .fetch, .done, .doneAsking, .prove, .pair, .rekey, .rekeyApplied:
                return []
            }
        }

        /// The tick: nothing new since the last one is a stall. The first stall in a row asks again; the second
        /// moves to a new link, once per run of stalls; after `maximumStalls` the transfer fails.
        /// - Throws: `remoteApplicationTimedOut` after `maximumStalls` + 1 stalls in a row; `connectionUnavailable`
        ///   when the move to a new link is one more than `maximumReconnects`.
        mutating func tick() throws(HandoffError) -> [Action] {
            guard liveness.progressSinceTick else {
                liveness.stalls += 1
                if liveness.stalls > configuration.maximumStalls {
                    throw HandoffError(.remoteApplicationTimedOut,
                                       "the source device stopped answering (no progress after "
                                           + "\(liveness.stalls) waits of \(configuration.stallInterval))")
                }
                // Asked twice in vain on this link: try once on a new one. (In the VM a channel right after a
                // bluetoothd restart took the source's answers in the kernel and never gave them to us; the source
                // was fine: Docs/reliability.md.)
                if liveness.stalls >= 2, !liveness.relinked {
                    liveness.relinked = true
                    return try relink()
                }
                return askAgain()
            }
            liveness.progressSinceTick = false
            return []
        }

        /// The link dropped: move to a new one and resume from the last byte received.
        /// - Throws: `connectionUnavailable` after `maximumReconnects` moves.
        mutating func linkClosed() throws(HandoffError) -> [Action] {
            try relink()
        }

        /// The new link the last `.relink` asked for is open: ask again from the last byte received. No frame of
        /// an older stream can arrive on it.
        mutating func relinked(_ link: Link) -> [Action] {
            self.link = link
            withStream { $0.lastOffset = nil }
            return askAgain()
        }

        /// The app agreed to the `.approve` it was asked: fetch the payload, or finish when it has no records. Called
        /// at any other time (before the `.approve`, or a second time), it does nothing.
        mutating func approved() -> [Action] {
            let window = fetchWindow, requests = requests
            return withStream { stream in
                guard case .approving(let type) = stream.stage else { return [] }
                stream.stage = .payload(activityType: type)
                if stream.header.recordCount > 0 {
                    stream.refetchPending = true
                    stream.lastOffset = nil
                    return [stream.fetch(from: Int(stream.header.metadataLength), window: window)]
                }
                return stream.finishIfComplete(requests: requests)
            } ?? []
        }

        // MARK: - Steps

        private func request() -> Action {
            let mac = keys.requestMAC(sequence: remote.sequence, nonce: requestNonce)
            return .write(.request(sequence: remote.sequence, nonce: requestNonce, mac: mac))
        }

        private mutating func relink() throws(HandoffError) -> [Action] {
            liveness.reconnects += 1
            guard liveness.reconnects <= configuration.maximumReconnects else {
                throw HandoffError(.connectionUnavailable, "the source device went away mid-transfer and did not "
                                       + "come back after \(configuration.maximumReconnects) reconnection attempts")
            }
            return [.relink]
        }

        private mutating func askAgain() -> [Action] {
            let window = fetchWindow
            return withStream { stream in
                stream.refetchPending = true
                let from = stream.received.count
                guard from < stream.phaseEnd else { return [] }
                return [stream.fetch(from: from, window: window)]
            } ?? [request()]
        }

        /// How much one FETCH asks for: `configuration.fetchWindow` bytes (`channelFetchWindow` on a channel)
        /// rounded down to whole DATA frames of this link (so no window ends in a short frame); 0 for the whole
        /// phase.
        private var fetchWindow: Int {
            let frame = max(link.maximumFrameLength - TransferFrame.dataOverhead, 1)
            let asked = link.isChannel ? configuration.channelFetchWindow : configuration.fetchWindow
            return asked > 0 ? max(asked / frame, 1) * frame : 0
        }

        private mutating func accept(offset: Int, bytes: [UInt8]) throws(HandoffError) -> [Action] {
            let window = fetchWindow, requests = requests, expectedType = remote.activityType
            var progressed = false
            defer { if progressed { liveness.progressed() } }
            return try withStream { (stream) throws(HandoffError) -> [Action] in
                let have = stream.received.count
                // Within one stream offsets only grow, and every stream starts at or before `have`: a frame at or
                // before the one before it (or the first since no older stream can still be sending) opens a new
                // stream.
                let fresh = stream.lastOffset.map { offset <= $0 } ?? true
                stream.lastOffset = offset
                if offset > have {
                    // A gap. Ask again from `have` once; while that is pending, the rest of the stream it replaces
                    // is stale, and asking for each of its frames would restart the source each time. But a new
                    // stream that opens past `have` lost its first frames too: ask at once rather than wait for a
                    // tick.
                    guard !stream.refetchPending || fresh, have < stream.phaseEnd else { return [] }
                    stream.refetchPending = true
                    return [stream.fetch(from: have, window: window)]
                }
                let end = min(offset + bytes.count, stream.phaseEnd)
                guard end > have else { return [] }
                stream.received += bytes[(have - offset)..<(end - offset)]
                stream.refetchPending = false
                progressed = true

                if let approval = try stream.openRecords(expectedType: expectedType) { return [approval] }
                guard case .payload = stream.stage else { return [] }
                if stream.nextRecord > stream.header.recordCount { return stream.finishIfComplete(requests: requests) }
                // The window is in: ask for the next one (one round trip per window keeps the source's queue
                // short).
                if stream.received.count == stream.requestedEnd, stream.requestedEnd < stream.phaseEnd {
                    stream.refetchPending = true
                    stream.lastOffset = nil
                    return [stream.fetch(from: stream.requestedEnd, window: window)]
                }
                return []
            } ?? []
        }

        /// Runs `body` on the stream in place, once the OPEN came; nil before. While it runs, `phase` does not hold
        /// the stream, so the stream's buffers have one owner and grow without being copied.
        @discardableResult
        private mutating func withStream<Value, Failure: Error>(
            _ body: (inout Stream) throws(Failure) -> Value
        ) throws(Failure) -> Value? {
            guard case .receiving(var stream) = phase else { return nil }
            phase = .requesting
            defer { phase = .receiving(stream) }
            return try body(&stream)
        }
    }
}

extension TransferClient.StateMachine {
    /// Where the transfer is, with what each step knows: nothing but the REQUEST before the OPEN, then the stream
    /// it names.
    enum Phase {
        /// The REQUEST went out (and the PROVE, when the source challenged it); no OPEN yet.
        case requesting
        /// The OPEN named the transfer: its stream is being fetched.
        case receiving(Stream)
    }

    /// The transfer the OPEN named: its bytes so far, the records opened, the window asked for, and how far the
    /// app let it go.
    struct Stream {
        /// How far the transfer may go.
        enum Stage: Equatable {
            /// Only the metadata record is fetched; it tells the activity type.
            case metadata
            /// The metadata opened: the app is asked (`.approve`) about this type, and nothing more is fetched.
            case approving(activityType: String)
            /// The app agreed: the whole stream is fetched and its records opened.
            case payload(activityType: String)
        }

        let header: TransferHeader
        let sealer: TransferSealer
        var stage = Stage.metadata
        /// The sealed stream received, from its first byte, without gaps.
        var received: [UInt8] = []
        /// The plaintext of the payload records opened so far.
        var payload: [UInt8] = []
        /// The record to open next (0: the metadata record).
        var nextRecord = 0
        /// Whether a FETCH was sent that no byte answered yet.
        var refetchPending = false
        /// The offset of the last DATA frame, to tell a new stream from the rest of an old one; nil when no old
        /// stream can still be sending (none yet, its window arrived whole, or the link is new).
        var lastOffset: Int?
        /// The end of the range last fetched (the current window).
        var requestedEnd = 0

        init(header: TransferHeader, sealer: TransferSealer) {
            self.header = header
            self.sealer = sealer
        }

        /// End of the current phase: the metadata record until approval, then the whole stream.
        var phaseEnd: Int {
            guard case .payload = stage else { return Int(header.metadataLength) }
            return header.streamLength
        }

        /// The activity type the metadata record named; nil before it opened.
        private var activityType: String? {
            switch stage {
            case .metadata: nil
            case .approving(let type), .payload(let type): type
            }
        }

        /// Asks for the window of `window` bytes (0: the rest of the phase) starting at `from`, never past the phase.
        mutating func fetch(from: Int, window: Int) -> Action {
            let end = window > 0 ? min(from + window, phaseEnd) : phaseEnd
            requestedEnd = end
            return .write(.fetch(transferID: header.transferID, from: UInt32(from), to: UInt32(end)))
        }

        /// Opens every record that is now complete; returns `.approve` once the metadata record opened.
        /// - Parameter expectedType: the type the beacon announced, which the metadata must name.
        mutating func openRecords(expectedType: String?) throws(HandoffError) -> Action? {
            while nextRecord <= header.recordCount {
                let range = header.range(ofRecord: nextRecord)
                guard received.count >= range.upperBound else { break }
                let sealed = Array(received[range])
                defer { nextRecord += 1 }
                if nextRecord == 0 {
                    guard let type = sealer.openMetadata(sealed) else {
                        throw HandoffError(.corruptPayload, "the transfer's metadata failed authentication",
                                           activityType: expectedType)
                    }
                    if let expectedType, expectedType != type {
                        throw HandoffError(.corruptPayload, "the transfer carries type \(type), not the advertised "
                                               + "one", activityType: expectedType)
                    }
                    // Until approval the phase ends with the metadata record, so no payload record is here yet.
                    stage = .approving(activityType: type)
                    return .approve(activityType: type, header: header)
                }
                guard let plain = sealer.openRecord(nextRecord, sealed) else {
                    throw HandoffError(.corruptPayload, "payload record \(nextRecord) of "
                                           + "\(header.recordCount) failed authentication",
                                       activityType: activityType)
                }
                payload += plain
            }
            return nil
        }

        /// DONE and the result, once every record is open and the app agreed.
        func finishIfComplete(requests: ContinuationRequests) -> [Action] {
            guard case .payload(let type) = stage, nextRecord > header.recordCount else { return [] }
            // A DONE that asks goes first and a plain DONE after it: a source that knows requests finishes the
            // transfer at the first and finds nothing at the second; one older than requests drops the first as
            // malformed and still hears of the continue from the second.
            let done = TransferFrame.done(transferID: header.transferID, mac: sealer.doneMAC())
            let asking: [Action] = requests.isEmpty ? [] : [
                .write(.doneAsking(transferID: header.transferID, requests: requests.rawValue,
                                   mac: sealer.doneMAC(requests: requests.rawValue)))]
            return asking + [.write(done), .finish(TransferClient.Result(activityType: type, payload: Data(payload)))]
        }
    }

    /// Whether the source still answers, whatever the phase: stalls in a row, and moves to a new link.
    struct Liveness {
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
    }
}
