import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

/// Pairing and unpairing. The first user to pair claimed the daemon at the gate (``admit(_:to:_:)``).
extension HandoffDaemon {
    /// How a pairing runs.
    typealias PairingRole = PairingSession.Role

    /// Pairs as `role`, showing codes to `sender` (PairingCode signals, answered with ConfirmPairing), and returns
    /// the new device.
    func pair(role: PairingRole, timeout: Duration, sender: BusName, uid: UInt32) async throws -> DeviceInfo {
        guard !pairingBusy else { throw DaemonError.pairingFailed("a pairing is already in progress") }
        pairingBusy = true
        defer { pairingBusy = false }
        let before = Set(await engine.trust.devices.map(\.id))
        let store: TrustStore, peerName: String?
        do {
            (store, peerName) = try await runPairing(role: role, timeout: timeout, sender: sender, uid: uid)
        } catch let error as HandoffError {
            logger.warning("pairing failed: \(ErrorChain.text(error))")
            throw DaemonError(HandoffBusError.pairingFailed, error.message, cause: error.cause)
        }
        recentCandidates = [:]
        // The owner is on disk already: the gate wrote it before this pairing ran.
        do {
            try state.saveTrust(store)
        } catch {
            logger.error("paired, but the trust store could not be saved: \(ErrorChain.text(error))")
            throw DaemonError.failed("paired, but the trust store could not be saved; the pairing is lost "
                + "when handoffd restarts: free some space and pair again", cause: error)
        }
        if let offer, offer.uid != uid {
            await expire(offer.id)
        }
        // A device that joins a group learns every member at once: the one it paired with is the one the code was
        // shown with (its pairing beacon's name, now proven by the code), not whichever member the group lists first.
        let added = store.devices.filter { !before.contains($0.id) }
        let named = added.filter { $0.name == peerName }
        guard let device = (named.count == 1 ? named.first : nil) ?? added.last ?? store.devices.last else {
            throw DaemonError.pairingFailed("pairing ended without a new device")
        }
        lastSeen[device.id] = clock.date
        logger.log("user \(uid) paired with '\(device.name)' (\(device.id))")
        return DeviceInfo(id: device.id.uuidString, name: device.name, inRange: true, lastSeenSecondsAgo: 0)
    }

    /// Runs a ``PairingSession``: feeds it the events (candidates, the responder's and the initiator's ends, the
    /// timer, the caller leaving) one at a time and carries out its actions, until it finishes. Returns the new trust
    /// state and the name the other device's pairing beacon gave, which the code was shown with.
    private func runPairing(role: PairingRole, timeout: Duration, sender: BusName, uid: UInt32) async throws
        -> (TrustStore, String?)
    {
        var session = PairingSession(role: role, ownName: await engine.trust.identity.name, timeout: timeout)
        // The other device's name, learnt from its pairing beacon while the pairing runs.
        let peerName = Locked<String?>(nil)
        let confirm: @Sendable (String) async -> Bool = { [weak self] code in
            await self?.askUser(code: code, deviceName: peerName.value ?? "a nearby device", sender: sender,
                                uid: uid, timeout: timeout) ?? false
        }
        let (events, sink) = AsyncStream<PairingSession.Event>.makeStream()
        let engine = self.engine
        let clock = self.clock
        var responder: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var callerWatch: Task<Void, Never>?
        defer {
            responder?.cancel()
            callerWatch?.cancel()
            timer?.cancel()
            sink.finish()
            pairingEvents = nil
        }
        var iterator = events.makeAsyncIterator()
        var actions = session.handle(.started)
        while true {
            // Carry out the actions in order; the initiator's end adds those it leads to.
            peerName.value = session.peerName
            var index = 0
            while index < actions.count {
                let action = actions[index]
                index += 1
                switch action {
                case .startResponder(let generation):
                    responder = Task {
                        do {
                            sink.yield(.responderAnswered(generation: generation,
                                                          .success(try await engine.acceptPairing(confirm: confirm))))
                        } catch {
                            sink.yield(.responderAnswered(generation: generation, .failure(error)))
                        }
                    }
                case .stopResponder:
                    if let running = responder {
                        responder = nil
                        running.cancel()
                        await running.value
                    }
                case .initiate(let candidate, let attemptTimeout):
                    logger.log("pairing with '\(candidate.name)' as the initiator")
                    let result: Result<TrustStore, any Error>
                    do {
                        result = .success(try await engine.pair(with: candidate.peer, timeout: attemptTimeout,
                                                                confirm: confirm))
                    } catch {
                        result = .failure(error)
                    }
                    // Awaited here, before the next event is read, as the session expects.
                    actions += session.handle(.initiatorFinished(result))
                    peerName.value = session.peerName
                case .offerAgain(let candidate, let delay):
                    Task {
                        try? await clock.sleep(for: delay)
                        sink.yield(.candidateSeen(candidate))
                    }
                case .noteRetry(let error):
                    logger.notice("pairing attempt failed (\(ErrorChain.text(error))); trying again")
                case .noteSetAside(let candidate, let error):
                    logger.notice("pairing with '\(candidate.name)' failed every attempt (\(ErrorChain.text(error))); trying the other "
                                      + "devices in pairing mode")
                case .finish(let result):
                    return (try result.get(), session.peerName)
                }
            }
            if timer == nil {
                // Candidates come from the daemon's permanent watcher (remember(_:)): the ones seen lately now,
                // later ones as they come. Both happen on this actor, so none falls between the two.
                let now = clock.date
                for recent in recentCandidates.values where now.timeIntervalSince(recent.seen) < Self.candidateMemory {
                    sink.yield(.candidateSeen(recent.candidate))
                }
                pairingEvents = sink
                let deadline = clock.now + timeout
                timer = Task {
                    try? await clock.sleep(until: deadline)
                    sink.yield(.timedOut)
                }
                // Nobody is left to confirm a code when the caller (`handoff pair`) goes away: stop pairing then.
                let departures = try? await connection.nameOwnerChanges(of: sender)
                callerWatch = Task {
                    guard let departures else { return }
                    for await change in departures where change.newOwner == nil {
                        sink.yield(.callerLeft)
                        return
                    }
                }
            }
            // The stream ends only when this task is cancelled.
            guard let event = await iterator.next() else { break }
            actions = session.handle(event)
        }
        if case .finish(let result)? = session.handle(.cancelled).last { return (try result.get(), session.peerName) }
        throw HandoffError(.pairingFailed, "pairing was cancelled")
    }

    /// How long a pairing beacon is remembered, and how many different names at most: anyone in radio range can
    /// advertise pairing beacons under names of their choosing, one new name per advertisement, so an unbounded
    /// memory of them grew the daemon for as long as such a flood lasted.
    static let candidateMemory: TimeInterval = 120
    static let maximumRecentCandidates = 64

    /// Records a device seen in pairing mode: the latest `maximumRecentCandidates` names of the last
    /// `candidateMemory` seconds.
    func remember(_ candidate: PairingCandidate) {
        let now = clock.date
        recentCandidates = recentCandidates.filter { now.timeIntervalSince($0.value.seen) < Self.candidateMemory }
        recentCandidates[candidate.name] = (candidate, now)
        if recentCandidates.count > Self.maximumRecentCandidates,
            let oldest = recentCandidates.min(by: { $0.value.seen < $1.value.seen })?.key
        {
            recentCandidates[oldest] = nil
        }
        pairingEvents?.yield(.candidateSeen(candidate))
    }

    /// Sends the code to the caller and waits for ConfirmPairing (false after `timeout`).
    private func askUser(code: String, deviceName: String, sender: BusName, uid: UInt32, timeout: Duration) async
        -> Bool
    {
        logger.log("pairing code \(code) with '\(deviceName)': waiting for user \(uid) to confirm")
        let clock = self.clock
        let timer = Task { [weak self] in
            try? await clock.sleep(for: timeout)
            await self?.answer(code: code, accept: false)
        }
        defer { timer.cancel() }
        // Cancelled when the pairing ends without the answer (the other device's user rejected the code): the
        // question is then withdrawn as if answered no.
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                confirmations[code]?.continuation.resume(returning: false)
                confirmations[code] = PendingConfirmation(uid: uid, continuation: continuation)
                do {
                    try connection.emitSignal(
                        HandoffBusAPI.Signal.pairingCode, deviceName, code, path: HandoffBusAPI.objectPath,
                        interface: HandoffBusAPI.interface, destination: sender)
                } catch {
                    logger.warning("cannot send the pairing code to \(sender): \(ErrorChain.text(error))")
                    answer(code: code, accept: false)
                }
            }
        } onCancel: {
            Task { [weak self] in await self?.answer(code: code, accept: false) }
        }
    }

    private func answer(code: String, accept: Bool) {
        confirmations.removeValue(forKey: code)?.continuation.resume(returning: accept)
    }

    /// The user's answer to a PairingCode signal.
    func confirmPairing(code: String, accept: Bool, uid: UInt32) throws {
        guard let pending = confirmations[code] else {
            throw DaemonError.pairingFailed("no pairing is waiting for code \(code)")
        }
        guard pending.uid == uid else { throw DaemonError.accessDenied("this pairing was started by another user") }
        logger.log("user \(uid) \(accept ? "confirmed" : "rejected") pairing code \(code)")
        answer(code: code, accept: accept)
    }

    /// Forgets a paired device (by id or name) and rotates the group key.
    func unpair(_ device: String, uid: UInt32) async throws {
        var store = await engine.trust
        guard let target = store.devices.first(where: { $0.id.uuidString.lowercased() == device.lowercased() })
            ?? store.devices.first(where: { $0.name == device })
        else {
            throw DaemonError(HandoffBusError.unknownDevice, "no paired device is called '\(device)'")
        }
        do {
            // The engine rotates the group key and delivers it to the remaining devices over the radio when it
            // next sees them; trustUpdates() saves every step.
            store = try await engine.revoke(target.id)
        } catch {
            throw DaemonError(error)
        }
        try state.saveTrust(store)
        lastSeen[target.id] = nil
        withdraw(device: target.id)
        logger.log("user \(uid) unpaired '\(target.name)'")
    }
}
