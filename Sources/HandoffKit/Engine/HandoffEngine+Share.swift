import FoundationEssentials
import HandoffShared

/// Sharing: a push of one item (a file, text or a link) to one trusted device's inbox. Not an activity: no beacon
/// names it and the source asks nothing of an app. The sender connects to the receiver's transfer service and
/// writes a sealed stream (Docs/protocol.md §8); the receiver authenticates the sender per device before it stores
/// a byte, and keeps whole records on disk, so a push resumes from the last record held.
extension HandoffEngine {
    /// The activity type whose keyed tag marks a presence beacon: "this device is here and takes shares". It is
    /// never declared, so it never surfaces as an activity.
    static let presenceType = "org.handoff.presence"

    /// Share state of the engine.
    struct ShareState {
        var inbox: ShareInbox?
        var presence = false
        var presenceTask: Task<Void, Never>?
        var sessions: [TransferID: IncomingPush] = [:]
        /// The challenge each central's last authenticated PUSH got; one use each (`Gate.provesPush`).
        var challenges: [PeerAddress: PushChallenge] = [:]
        var sightings: [UUID: Sighting] = [:]
        let sightingBroadcast = Broadcaster<UUID>()
        let arrivalBroadcast = Broadcaster<InboxItem>()
    }

    /// Where and when a trusted device's beacon (of any kind) was last received.
    struct Sighting {
        var peer: PeerAddress
        var seenAt: Date
        var sequence: UInt32
        /// Other addresses that sequence was heard from, tried when `peer` fails (`AddressCandidates`).
        var candidates: AddressCandidates
    }

    /// A PUSH that authenticated, waiting for the PROOF that shows it is fresh. Nothing else is kept of it.
    struct PushChallenge {
        let transferID: TransferID
        let sender: TrustedDevice
        let keys: ShareKeys
        let header: TransferHeader
        let challenge: [UInt8]
        let issuedAt: HandoffInstant
    }

    /// How many centrals may wait with a challenge at once (the oldest makes room).
    static let challengeLimit = 16

    /// A push being received.
    struct IncomingPush {
        let sender: TrustedDevice
        let central: PeerAddress
        let header: TransferHeader
        let sealer: TransferSealer
        let keys: ShareKeys
        var nextRecord: Int
        var buffer: [UInt8] = []
        var metadata: ShareMetadata?
        var gapReported = false
        /// When the session began, on the engine's clock (the oldest is evicted first).
        var startedAt: HandoffInstant

        /// The next stream byte this side needs.
        var expected: Int {
            nextRecord > header.recordCount ? header.streamLength
                : header.range(ofRecord: nextRecord).lowerBound + buffer.count
        }
    }

    // MARK: - Public API

    /// Takes pushes into `inbox` (nil: refuse every push), and, with `advertisePresence`, advertises a presence
    /// beacon while no activity is current and some device is paired, so paired devices see that this one is in
    /// range. The presence beacon is
    /// sealed like an activity beacon (nothing readable to strangers) and re-sealed every `beaconRotationInterval`.
    package func enableSharing(inbox: ShareInbox?, advertisePresence: Bool) async {
        share.inbox = inbox
        share.presence = advertisePresence
        share.presenceTask?.cancel()
        share.presenceTask = nil
        if advertisePresence, let interval = configuration.beaconRotationInterval {
            share.presenceTask = Task { [weak self, clock] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    await self?.refreshPresence()
                }
            }
        }
        await refreshPresence()
    }

    /// Pushes `item` to the trusted device `deviceID`, at the address its last beacon came from (or, when that
    /// fails, where its current beacon was also heard and it proves itself: an address rotation). Returns when the
    /// receiver confirmed the item is stored in its inbox. `progress(sent, total)` counts sealed-stream bytes;
    /// `path` is told each link the push takes (BLE's, then `.tcp` when it moves to the fast lane, §9).
    /// Push the same item (same transfer id) again after a failure: it resumes, and is never stored twice.
    /// - Throws: `connectionUnavailable` when the device was not seen or cannot be reached, the receiver's
    ///   refusal (`untrustedPeer`, `inboxFull`, `itemTooLarge`...), or `remoteApplicationTimedOut`.
    package func push(_ item: OutgoingShare, to deviceID: UUID,
                      progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in },
                     path: @escaping @Sendable (LinkTransport) -> Void = { _ in }) async throws(HandoffError) {
        guard let device = trust.device(deviceID) else {
            throw HandoffError(.untrustedPeer, "device \(deviceID) is not paired with this one")
        }
        guard let sighting = share.sightings[deviceID] else {
            throw HandoffError(.connectionUnavailable, "\(device.name) is not in range (none of its beacons was seen)")
        }
        guard let keys = ShareKeys(store: trust, peer: device, sending: true) else {
            throw HandoffError(.invalidTrustState, "\(device.name) has an unusable public key")
        }
        let stream = try ShareStream(item, keys: keys)
        let (radio, senderID, configuration) = (radio, trust.identity.id, configuration)
        // Where the receiver was last seen, then, if it cannot be reached there, where its current beacon was also
        // heard: it may have rotated its address (`followingRotation`).
        let (result, moved) = await followingRotation(
            from: sighting.peer,
            candidates: { share.sightings[deviceID]?.candidates.addresses(for: sighting.sequence) ?? [] },
            isFollowable: AddressCandidates.worthFollowing
        ) { peer in
            let sender = ShareSender(radio: radio, peer: peer, receiver: device, senderID: senderID, keys: keys,
                                     configuration: configuration, onPath: path)
            return await sender.attempt(stream, progress: progress)
        }
        if let moved { deviceProved(deviceID, at: moved, sequence: sighting.sequence) }
        try result.get()
    }

    /// When each trusted device's beacon (an activity or presence) was last received.
    package func lastSightings() -> [UUID: Date] {
        share.sightings.mapValues(\.seenAt)
    }

    /// The id of a trusted device each time it comes into range (first beacon, a new address, or a beacon after a
    /// minute of silence). The daemon retries its outbox then. Ends when the engine stops.
    package func sightings() -> AsyncStream<UUID> {
        share.sightingBroadcast.subscribe()
    }

    /// Every item that arrives in the inbox. Ends when the engine stops.
    package func arrivals() -> AsyncStream<InboxItem> {
        share.arrivalBroadcast.subscribe()
    }

    // MARK: - Presence

    /// Advertises the presence beacon when sharing wants it and nothing else owns the advertisement; otherwise
    /// leaves the advertisement alone (or stops it when idle).
    func refreshPresence() async {
        guard current == nil, pairingInbox == nil else { return }
        guard share.presence else { return }
        // Nobody could read it before the first pairing: advertise nothing then (less radio time, less to see).
        guard !trust.devices.isEmpty else {
            await radio.stopAdvertising()
            return
        }
        let sequence = sequences.take(serving: false)
        let beacon = beaconCodec.seal(device: trust.identity.id, typeTag: keys.typeTag(for: Self.presenceType),
                                      sequence: sequence)
        try? await radio.advertise(beacon)
    }

    /// What the engine advertises once no activity is current: presence, or nothing.
    func advertiseIdle() async {
        if share.presence { await refreshPresence() } else { await radio.stopAdvertising() }
    }

    /// Notes a trusted device's beacon. Returns true for a presence beacon (which carries no activity).
    func noteSighting(_ beacon: Beacon, from event: ScanEvent) -> Bool {
        let previous = share.sightings[beacon.device]
        let isPresence = beacon.typeTag == keys.typeTag(for: Self.presenceType)
        // Only a new sequence moves a device (Docs/protocol.md, "The gate"): an older one, or the current one from
        // another address, is a replay, and must not send the next push to the replayer. The current one from
        // another address may also be the device after an address rotation: it is kept as a candidate, which a
        // push tries only when the device's address fails, and which becomes its address only if it proves itself.
        let last = previous.map { (sequence: $0.sequence, peer: $0.peer) }
        let verdict = Gate.beaconMoves(sequence: beacon.sequence, from: event.peer, after: last)
        if verdict == .replay, var sighting = previous {
            sighting.candidates.heard(sequence: beacon.sequence, from: event.peer, current: sighting.peer)
            share.sightings[beacon.device] = sighting
            return isPresence
        }
        let now = clock.date
        let kept = verdict == .repeat ? previous?.candidates : nil
        let candidates = kept ?? AddressCandidates(sequence: beacon.sequence)
        share.sightings[beacon.device] = Sighting(peer: event.peer, seenAt: now, sequence: beacon.sequence,
                                                  candidates: candidates)
        if previous == nil || previous?.peer != event.peer || now.timeIntervalSince(previous?.seenAt ?? now) > 60 {
            share.sightingBroadcast.publish(beacon.device)
        }
        return isPresence
    }

    func stopSharing() {
        share.presenceTask?.cancel()
        share.sightingBroadcast.finishAll()
        share.arrivalBroadcast.finishAll()
    }

    // MARK: - Receiving

    /// Handles one share frame a central wrote.
    func handleShare(_ write: IncomingWrite) async -> Gate.Writer {
        let frame: ShareFrame
        do throws(HandoffError) {
            frame = try ShareFrame.decode(write.value)
        } catch {
            await shareRefuse(error, id: .zero, keys: nil, to: write)
            return .dropped
        }
        switch frame {
        case .push(let id, let senderBytes, let header, let mac):
            return await challengePush(id: id, senderBytes: senderBytes, header: header, mac: mac, from: write)
        case .proof(let id, let mac):
            await handleProof(id: id, mac: mac, from: write)
        case .data(let id, let offset, let bytes):
            await handlePushData(id: id, offset: Int(offset), bytes: bytes, from: write)
        case .accept, .done, .error, .challenge:
            return .dropped
        }
        return .kept
    }

    /// A PUSH: authenticates it and answers with a fresh challenge, and changes nothing else. A PUSH can be recorded
    /// and replayed by anyone; only the PROOF that answers the challenge (`handleProof`) opens or moves a session.
    private func challengePush(id: TransferID, senderBytes: [UInt8], header: TransferHeader, mac: [UInt8],
                               from write: IncomingWrite) async -> Gate.Writer {
        // Authenticate before anything else: a stranger, a revoked device or a forger gets no state at all.
        guard let senderID = UUID(bytes: senderBytes), let sender = trust.device(senderID),
              let keys = ShareKeys(store: trust, peer: sender, sending: false),
              Sodium.constantTimeEqual(keys.pushMAC(transferID: id, sender: senderID, header: header), mac) else {
            await shareRefuse(HandoffError(.untrustedPeer, "this device does not trust the sender"), id: id, keys: nil,
                              to: write)
            return .dropped
        }
        if share.challenges[write.central] == nil, share.challenges.count >= Self.challengeLimit,
           let oldest = share.challenges.min(by: { $0.value.issuedAt < $1.value.issuedAt }) {
            share.challenges[oldest.key] = nil
        }
        let challenge = Sodium.randomBytes(ShareFrame.challengeLength)
        share.challenges[write.central] = PushChallenge(transferID: id, sender: sender, keys: keys, header: header,
                                                        challenge: challenge, issuedAt: clock.now)
        await shareReply(.challenge(transferID: id, challenge: challenge), to: write)
        return .kept
    }

    /// A PROOF: when it answers this central's challenge, the push is fresh and goes on as the PUSH asked. Any
    /// other PROOF (a replay, a stale one, another central's) is dropped without a word.
    private func handleProof(id: TransferID, mac: [UInt8], from write: IncomingWrite) async {
        guard let pending = share.challenges[write.central], pending.transferID == id,
              trust.device(pending.sender.id) != nil,
              Gate.provesPush(mac, transferID: id, challenge: pending.challenge, keys: pending.keys) else { return }
        share.challenges[write.central] = nil
        await handlePush(pending, from: write)
    }

    private func handlePush(_ push: PushChallenge, from write: IncomingWrite) async {
        let (id, sender, keys, header) = (push.transferID, push.sender, push.keys, push.header)
        guard let inbox = share.inbox else {
            await shareRefuse(HandoffError(.handoffFailed, "this device does not take shares"), id: id, keys: keys,
                              to: write)
            return
        }
        // DATA and ACCEPT name offsets in 32 bits: a longer stream could never be acknowledged.
        guard header.recordSize >= 256 || header.recordCount <= 1, header.metadataLength <= 2048,
              header.streamLength <= Int(UInt32.max) else {
            await shareRefuse(HandoffError(.corruptPayload, "the push's header is out of bounds"), id: id, keys: keys,
                              to: write)
            return
        }
        // A repeated PUSH in a live session (the sender saw no progress) learns where this side stands.
        if var session = share.sessions[id], session.sender.id == sender.id {
            if session.central != write.central {
                session = IncomingPush(sender: sender, central: write.central, header: header, sealer: session.sealer,
                                       keys: keys, nextRecord: session.nextRecord, buffer: session.buffer,
                                       metadata: session.metadata, startedAt: clock.now)
            }
            session.gapReported = false
            share.sessions[id] = session
            await shareReply(.accept(transferID: id, offset: UInt32(session.expected)), to: write)
            return
        }
        do throws(HandoffError) {
            // A record's check on disk is its AEAD tag (`ShareInbox.append`): sealing a held record again under the
            // transfer's key gives the same tag only for the same bytes.
            let sealer = TransferSealer(header: header, key: keys.transferKey(id))
            let check = { (index: Int, plaintext: [UInt8]) -> [UInt8] in
                Array(sealer.sealRecord(index, plaintext).suffix(Sodium.aeadTagLength))
            }
            switch try inbox.begin(header, from: sender, check: check) {
            case .delivered:
                await shareReply(.done(transferID: id, mac: keys.doneMAC(id)), to: write)
            case .resume(let record, let metadata):
                let session = IncomingPush(sender: sender, central: write.central, header: header,
                                           sealer: sealer,
                                           keys: keys, nextRecord: record, metadata: metadata, startedAt: clock.now)
                if share.sessions.count >= 8, let oldest = share.sessions.min(by: { $0.value.startedAt < $1.value.startedAt }) {
                    share.sessions[oldest.key] = nil   // bound what half-open pushes can hold in memory
                }
                share.sessions[id] = session
                if record > header.recordCount, metadata != nil {
                    await completePush(id, inbox: inbox, to: write)
                } else {
                    await shareReply(.accept(transferID: id, offset: UInt32(session.expected)), to: write)
                }
            }
        } catch {
            await shareRefuse(error, id: id, keys: keys, to: write)
        }
    }

    private func handlePushData(id: TransferID, offset: Int, bytes: [UInt8], from write: IncomingWrite) async {
        // Data of a push this side does not know (evicted, or from before a restart) is ignored: the sender sees no
        // progress, announces again and learns where to resume.
        guard var session = share.sessions[id], session.central == write.central, let inbox = share.inbox else { return }
        let expected = session.expected
        if offset > expected {
            if !session.gapReported {
                session.gapReported = true
                share.sessions[id] = session
                await shareReply(.accept(transferID: id, offset: UInt32(expected)), to: write)
            }
            return
        }
        let end = min(offset + bytes.count, session.header.streamLength)
        guard end > expected else { return }
        session.buffer += bytes[(expected - offset)..<(end - offset)]
        session.gapReported = false
        // The whole records in the buffer are opened, then stored with one write to each file (a 256 KiB frame of
        // the fast lane holds 64), and the buffer shifted once.
        var opened: [[UInt8]] = []
        var tags: [[UInt8]] = []
        var consumed = 0
        do throws(HandoffError) {
            while session.nextRecord <= session.header.recordCount {
                let length = session.header.range(ofRecord: session.nextRecord).count
                guard session.buffer.count - consumed >= length else { break }
                let sealed = session.buffer[consumed..<(consumed + length)]
                consumed += length
                if session.nextRecord == 0 {
                    guard let plain = session.sealer.openRecord(0, sealed), let metadata = ShareMetadata(decoding: plain)
                    else { throw HandoffError(.corruptPayload, "the push's metadata failed authentication") }
                    try inbox.setMetadata(metadata, transferID: id)
                    session.metadata = metadata
                } else {
                    guard let plain = session.sealer.openRecord(session.nextRecord, sealed) else {
                        throw HandoffError(.corruptPayload, "record \(session.nextRecord) of the push failed authentication")
                    }
                    opened.append(plain)
                    tags.append(Array(sealed.suffix(Sodium.aeadTagLength)))
                }
                session.nextRecord += 1
            }
            try inbox.append(records: opened, checks: tags, transferID: id)
            session.buffer.removeFirst(consumed)
        } catch {
            share.sessions[id] = nil
            if error.code == .corruptPayload { inbox.discard(transferID: id) }
            await shareRefuse(error, id: id, keys: session.keys, to: write)
            return
        }
        share.sessions[id] = session
        if session.nextRecord > session.header.recordCount {
            await completePush(id, inbox: inbox, to: write)
        }
    }

    private func completePush(_ id: TransferID, inbox: ShareInbox, to write: IncomingWrite) async {
        guard let session = share.sessions.removeValue(forKey: id) else { return }
        do throws(HandoffError) {
            let item = try inbox.commit(transferID: id)
            await shareReply(.done(transferID: id, mac: session.keys.doneMAC(id)), to: write)
            share.arrivalBroadcast.publish(item)
        } catch {
            await shareRefuse(error, id: id, keys: session.keys, to: write)
        }
    }

    /// Sends PUSH-ERROR, bound to the push (`Gate.admitPush`): with the pair's error MAC once the sender is
    /// authenticated (`keys`), else with the digest of the refused write, which only its writer can match.
    private func shareRefuse(_ error: HandoffError, id: TransferID, keys: ShareKeys?, to write: IncomingWrite) async {
        let room = write.maximumFrameLength - ShareFrame.errorOverhead
        var message = ""
        for character in error.message {
            if message.utf8.count + character.utf8.count > room { break }
            message.append(character)
        }
        let code = error.code.rawValue
        let tag = keys?.errorTag(transferID: id, code: code, message: message) ?? Gate.echoTag(of: write.value)
        await shareReply(.error(transferID: id, code: code, tag: tag, message: message), to: write)
    }

    private func shareReply(_ frame: ShareFrame, to write: IncomingWrite) async {
        try? await service?.notify(frame.encoded(), to: write.central)
    }
}
