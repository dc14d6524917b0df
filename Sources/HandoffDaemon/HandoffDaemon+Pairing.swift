import DBus
import Foundation
import HandoffClient
import HandoffDBusClient
import HandoffKit
import HandoffShared

/// Pairing and unpairing. The user who pairs becomes the owner of the trust group.
extension HandoffDaemon {
    /// How a pairing runs.
    enum PairingRole {
        /// `handoff pair` on both devices: each enters pairing mode and looks for the other; the device whose
        /// name sorts first initiates, the other answers.
        case automatic
        /// Initiate with the device in pairing mode that has this name.
        case initiate(String)
        /// Pairing mode only: wait for a device to initiate.
        case accept
    }

    /// Events of a running pairing, merged into one stream.
    enum PairingEvent: Sendable {
        case answered(generation: Int, Result<TrustStore, any Error>)
        case candidate(PairingCandidate)
        case timedOut
        case callerLeft
    }

    /// Pairs as `role`, showing codes to `sender` (PairingCode signals, answered with ConfirmPairing), and returns
    /// the new device.
    func pair(role: PairingRole, timeout: Duration, sender: BusName, uid: UInt32) async throws -> DeviceInfo {
        try authorize(uid, "pair this device")
        guard !pairingBusy else { throw DaemonError.pairingFailed("a pairing is already in progress") }
        pairingBusy = true
        defer { pairingBusy = false }
        let before = Set(await engine.trust.devices.map(\.id))
        let store: TrustStore
        do {
            store = try await runPairing(role: role, timeout: timeout, sender: sender, uid: uid)
        } catch let error as HandoffError {
            logger.warning("pairing failed: \(error)")
            throw DaemonError.pairingFailed(error.message)
        }
        recentCandidates = [:]
        do {
            try state.saveTrust(store)
        } catch {
            logger.error("paired, but the trust store could not be saved: \(error)")
        }
        if persisted.ownerUID == nil {
            persisted.ownerUID = uid
            saveState()
        }
        if let offer, offer.uid != uid {
            await expire(offer.id)
        }
        guard let device = store.devices.first(where: { !before.contains($0.id) }) ?? store.devices.last else {
            throw DaemonError.pairingFailed("pairing ended without a new device")
        }
        lastSeen[device.id] = clock.date
        logger.log("user \(uid) paired with '\(device.name)' (\(device.id))")
        return DeviceInfo(id: device.id.uuidString, name: device.name, inRange: true, lastSeenSecondsAgo: 0)
    }

    private func runPairing(role: PairingRole, timeout: Duration, sender: BusName, uid: UInt32) async throws
        -> TrustStore
    {
        let ownName = await engine.trust.identity.name
        // The other device's name, learnt from its pairing beacon while the pairing runs.
        let peerName = Locked<String?>(nil)
        let confirm: @Sendable (String) async -> Bool = { [weak self] code in
            await self?.askUser(code: code, deviceName: peerName.value ?? "a nearby device", sender: sender,
                                uid: uid, timeout: timeout) ?? false
        }
        let (events, sink) = AsyncStream<PairingEvent>.makeStream()
        let engine = self.engine
        let clock = self.clock
        var responder: Task<Void, Never>?
        var generation = 0
        var attemptsLeft = 3
        func startResponder() {
            guard case .initiate = role else {
                generation += 1
                let current = generation
                responder = Task {
                    do {
                        sink.yield(.answered(generation: current, .success(try await engine.acceptPairing(confirm: confirm))))
                    } catch {
                        sink.yield(.answered(generation: current, .failure(error)))
                    }
                }
                return
            }
        }
        startResponder()
        // Candidates come from the daemon's permanent watcher (remember(_:)): the ones seen lately now, later
        // ones as they come. Both happen on this actor, so none falls between the two.
        let now = clock.date
        for recent in recentCandidates.values where now.timeIntervalSince(recent.seen) < Self.candidateMemory {
            sink.yield(.candidate(recent.candidate))
        }
        pairingEvents = sink
        let timer = Task {
            try? await clock.sleep(for: timeout)
            sink.yield(.timedOut)
        }
        // Nobody is left to confirm a code when the caller (`handoff pair`) goes away: stop pairing then.
        let departures = try? await connection.nameOwnerChanges(of: sender)
        let callerWatch = Task {
            guard let departures else { return }
            for await change in departures where change.newOwner == nil {
                sink.yield(.callerLeft)
                return
            }
        }
        defer {
            responder?.cancel()
            callerWatch.cancel()
            timer.cancel()
            sink.finish()
            pairingEvents = nil
        }
        /// Over the air the first exchange right after a connection is sometimes lost; both sides then start
        /// over (the responder re-enters pairing mode, the initiator tries the candidate again), a few times.
        func retryable(_ error: any Error) -> Bool {
            guard let error = error as? HandoffError, attemptsLeft > 0,
                [.connectionUnavailable, .remoteApplicationTimedOut].contains(error.code) else { return false }
            attemptsLeft -= 1
            logger.notice("pairing attempt failed (\(error)); trying again")
            return true
        }
        for await event in events {
            switch event {
            case .answered(let answered, .success(let store)):
                guard answered == generation else { continue }
                return store
            case .answered(let answered, .failure(let error)):
                guard answered == generation, responder != nil else { continue }
                guard retryable(error) else { throw error }
                startResponder()
            case .timedOut:
                throw HandoffError(.pairingFailed, "no device paired within \(timeout.components.seconds) s")
            case .callerLeft:
                throw HandoffError(.pairingFailed, "the program that asked to pair went away")
            case .candidate(let candidate):
                let initiate: Bool
                switch role {
                case .accept:
                    peerName.value = candidate.name
                    initiate = false
                case .initiate(let name):
                    initiate = name.isEmpty || candidate.name == name
                case .automatic:
                    guard candidate.name != ownName else {
                        throw HandoffError(.pairingFailed, "both devices are named '\(ownName)'; start one with "
                            + "another --name")
                    }
                    peerName.value = candidate.name
                    initiate = ownName < candidate.name
                }
                guard initiate else { continue }
                peerName.value = candidate.name
                if let running = responder {
                    responder = nil
                    running.cancel()
                    await running.value
                }
                logger.log("pairing with '\(candidate.name)' as the initiator")
                do {
                    // Each attempt gets at most 45 s between messages (the other user confirming the code
                    // included), so a lost exchange is retried within the caller's timeout.
                    return try await engine.pair(with: candidate.peer, timeout: min(timeout, .seconds(45)),
                                                 confirm: confirm)
                } catch {
                    guard retryable(error) else { throw error }
                    startResponder()
                    // The other device re-enters pairing mode with the same beacon, which BlueZ may not report
                    // again: offer the same candidate once more after a moment.
                    Task {
                        try? await clock.sleep(for: .seconds(2))
                        sink.yield(.candidate(candidate))
                    }
                }
            }
        }
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
        pairingEvents?.yield(.candidate(candidate))
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
        return await withCheckedContinuation { continuation in
            confirmations[code]?.continuation.resume(returning: false)
            confirmations[code] = PendingConfirmation(uid: uid, continuation: continuation)
            do {
                try connection.emitSignal(
                    HandoffBusAPI.Signal.pairingCode, deviceName, code, path: HandoffBusAPI.objectPath,
                    interface: HandoffBusAPI.interface, destination: sender)
            } catch {
                logger.warning("cannot send the pairing code to \(sender): \(error)")
                answer(code: code, accept: false)
            }
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
        try authorize(uid, "unpair devices")
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
