import FoundationEssentials
import HandoffShared

extension HandoffEngine {
    /// An authenticated REQUEST waiting for the PROVE that shows it is fresh.
    struct RequestChallenge: Sendable {
        let nonce: Nonce
        let sequence: UInt32
        let challenge: [UInt8]
        let issuedAt: HandoffInstant
    }

    /// How many centrals may wait with a request challenge at once.
    static let requestChallengeLimit = 16

    /// Handles one value a central wrote to the request characteristic; returns what becomes of its writer.
    func handle(_ write: IncomingWrite) async -> Gate.Writer {
        if LaneFrame.claims(write.value) {
            return await handleLane(write)
        }
        if ShareFrame.claims(write.value) {
            return await handleShare(write)
        }
        let frame: TransferFrame
        do throws(HandoffError) {
            frame = try TransferFrame.decode(write.value)
        } catch {
            await reply(error, context: .zero, authenticated: false, to: write)
            return .dropped
        }
        switch frame {
        case .request(let sequence, let nonce, let mac):
            guard Sodium.constantTimeEqual(keys.requestMAC(sequence: sequence, nonce: nonce), mac) else {
                await reply(HandoffError(.untrustedPeer, "this device does not trust the requester"),
                            context: ErrorContext(nonce), authenticated: false, to: write)
                return .dropped
            }
            // A repeated request whose transfer is still cached (the client saw no answer yet) is answered at once:
            // it makes nothing new. Any other waits for the proof that it is fresh.
            if let repeated = transfers.answering(nonce) {
                startStream(repeated, from: 0, to: Int(repeated.header.metadataLength),
                            open: .open(repeated.header, requestNonce: nonce), to: write)
                return .kept
            }
            await challengeRequest(sequence: sequence, nonce: nonce, from: write)
        case .prove(let nonce, let mac):
            // The gate's freshness rule: only a proof of this central's challenge makes the source save and seal.
            guard let pending = requestChallenges[write.central], pending.nonce == nonce,
                  Gate.provesRequest(mac, nonce: nonce, challenge: pending.challenge, keys: keys) else { return .kept }
            requestChallenges[write.central] = nil
            do throws(HandoffError) {
                let transfer = try prepareTransfer(sequence: pending.sequence)
                transfers.keep(transfer, answering: nonce)
                startStream(transfer, from: 0, to: Int(transfer.header.metadataLength),
                            open: .open(transfer.header, requestNonce: nonce), to: write)
            } catch {
                await reply(error, context: ErrorContext(nonce), authenticated: true, to: write)
            }
        case .fetch(let id, let from, let to):
            guard let transfer = transfers.fetching(id, upTo: Int(to)) else {
                await reply(HandoffError(.handoffFailed, "unknown or expired transfer; request the activity again"),
                            context: ErrorContext(id), authenticated: true, to: write)
                return .dropped
            }
            startStream(transfer, from: Int(from), to: Int(to), open: nil, to: write)
        case .done(let id, let mac):
            // The receiver holds the whole activity: the transfer is finished, and a repeated or replayed DONE
            // finds nothing, so the source hears of the continuation exactly once.
            guard let transfer = transfers.finish(id, mac: mac) else { return .kept }
            transfer.activity.delegate?.userActivityWasContinued(transfer.activity)
        case .doneAsking(let id, let requests, let mac):
            // As DONE, with what the receiver asks (its MAC covers the requests); bits this version does not know
            // are passed on as they are, for the app to ignore.
            guard let transfer = transfers.finish(id, mac: mac, requests: requests) else { return .kept }
            transfer.activity.delegate?.userActivityWasContinued(
                transfer.activity, requests: ContinuationRequests(rawValue: requests))
        case .pair(let session, let index, let count, let chunk, false):
            return await handlePairingWrite(PairingWrite(central: write.central, session: session, index: index,
                                                         count: count, chunk: chunk, mtu: write.mtu))
        case .rekey(let session, let index, let count, let chunk):
            await handleRekeyFragment(session: session, index: index, count: count, chunk: chunk, from: write)
        case .open, .data, .error, .challenge, .pair, .rekeyApplied:
            return .dropped
        }
        return .kept
    }

    /// Drops `central`'s link `strangerDropGrace` after its refusal went out (`Gate.Writer.dropped`), in a task of
    /// its own, so that other centrals' writes are not held up meanwhile, and keeps its device away for
    /// `strangerCooldown`. Its further writes are handled (and refused) as before until the link is gone.
    func drop(_ central: PeerAddress, from service: any TransferService) {
        guard droppingCentrals.insert(central).inserted else { return }
        let grace = configuration.strangerDropGrace
        let cooldown = configuration.strangerCooldown
        Task { [weak self, clock] in
            try? await clock.sleep(for: grace)
            await service.drop(central, keepingAwayFor: cooldown)
            await self?.forgetDropped(central)
        }
    }

    private func forgetDropped(_ central: PeerAddress) {
        droppingCentrals.remove(central)
        requestChallenges[central] = nil
    }

    /// A REQUEST that authenticated and is not cached: keep a fresh challenge for its central (one each, at most
    /// `requestChallengeLimit`, the oldest making room) and notify it. Nothing else is kept or run.
    private func challengeRequest(sequence: UInt32, nonce: Nonce, from write: IncomingWrite) async {
        guard let service else { return }
        if requestChallenges[write.central] == nil, requestChallenges.count >= Self.requestChallengeLimit,
           let oldest = requestChallenges.min(by: { $0.value.issuedAt < $1.value.issuedAt }) {
            requestChallenges[oldest.key] = nil
        }
        let challenge = Sodium.randomBytes(TransferFrame.challengeLength)
        requestChallenges[write.central] = RequestChallenge(nonce: nonce, sequence: sequence, challenge: challenge,
                                                            issuedAt: clock.now)
        try? await service.notify(TransferFrame.challenge(nonce: nonce, challenge: challenge).encoded(),
                                  to: write.central)
    }

    /// Saves and seals the current activity for a request naming `sequence` (the caller keeps it).
    private func prepareTransfer(sequence: UInt32) throws(HandoffError) -> CachedTransfer {
        guard let activity = current, sequences.serves(sequence) else {
            throw HandoffError(.handoffFailed, "the activity is no longer offered by this device")
        }
        let type = activity.activityType
        let snapshot = activity.saveForSending()
        delegate?.didUpdate(activity)
        let missing = snapshot.missingRequiredKeys
        guard missing.isEmpty else {
            throw HandoffError(.invalidActivity, "required userInfo keys are missing: \(missing.joined(separator: ", "))",
                               activityType: type)
        }
        try checkAdvertisable(snapshot)
        let payload = try snapshot.encodedPayload()
        let (header, stream) = TransferSealer.seal(activityType: type, payload: payload, sequence: lastSequence ?? sequence,
                                                   recordSize: min(max(configuration.recordSize, 256), 65535),
                                                   keys: keys, source: trust.identity.id)
        return CachedTransfer(activity: activity, header: header, stream: stream,
                              sealer: TransferSealer(header: header, keys: keys, source: trust.identity.id))
    }

    /// Streams `from..<to` of `transfer` to the writer, replacing any stream already running to that central.
    private func startStream(_ transfer: CachedTransfer, from: Int, to: Int, open: TransferFrame?,
                             to write: IncomingWrite) {
        guard let service else { return }
        streams[write.central]?.cancel()
        // One DATA frame fills what the central takes: an ATT value on GATT, a whole SDU on a channel.
        let chunk = write.maximumFrameLength - TransferFrame.dataOverhead
        guard chunk > 0 else { return }
        let id = transfer.header.transferID
        let bytes = transfer.stream
        let central = write.central
        streams[central] = Task {
            do {
                if let open { try await service.notify(open.encoded(), to: central) }
                var offset = from
                while offset < to {
                    try Task.checkCancellation()
                    let end = min(offset + chunk, to)
                    let frame = TransferFrame.data(transferID: id, offset: UInt32(offset), bytes: Array(bytes[offset..<end]))
                    try await service.notify(frame.encoded(), to: central)
                    offset = end
                }
            } catch {
                // The central went away or a newer fetch replaced this stream; the client resumes by itself.
            }
        }
    }

    /// Sends an error frame (its message cut to fit what the central takes), bound to what it answers
    /// (`Gate.admitContinue`): with the group's error MAC when `authenticated` (a REQUEST whose MAC verified, a
    /// transfer this device made), else with the digest of the refused write, which only its writer can match.
    private func reply(_ error: HandoffError, context: ErrorContext, authenticated: Bool,
                       to write: IncomingWrite) async {
        guard let service else { return }
        let room = min(write.maximumFrameLength, WireProtocol.maximumValueLength) - TransferFrame.errorOverhead
        var message = ""
        for character in error.message {
            if message.utf8.count + character.utf8.count > room { break }
            message.append(character)
        }
        let code = error.code.rawValue
        let tag = authenticated ? keys.errorTag(context: context, code: code, message: message)
            : Gate.echoTag(of: write.value)
        let frame = TransferFrame.error(context: context, code: code, tag: tag, message: message)
        try? await service.notify(frame.encoded(), to: write.central)
    }
}
