import HandoffShared
import HandoffKit

/// One run of the daemon's Pair or AcceptPairing call, as a state machine: events in, actions out. It does no I/O
/// and reads no clock; ``HandoffDaemon`` feeds it what happened (a candidate's beacon, the responder's or the
/// initiator's result, the timer, the caller leaving) and carries out what it returns (start or stop the
/// responder, initiate, offer a candidate again later, finish).
///
/// ```
///          started                 candidate to initiate with
/// idle ───────────▶ waiting ───────────────────────────────────▶ initiating
///                   │  ▲  ◀─ initiator failed: retried, set aside ┘   │
///                   │  └─ responder failed, retried                   │
///                   ▼                                                 ▼
///                finished ◀── paired, failed, timed out, caller left, cancelled
/// ```
///
/// While it initiates, the daemon awaits the initiator before it reads another event; an event that arrives
/// then all the same waits in the session and is handled after the initiator's result, in order, as the
/// daemon's stream of events would have kept it.
struct PairingSession: Sendable {
    /// How a pairing runs.
    enum Role: Sendable, Equatable {
        /// `handoff pair` on both devices: each enters pairing mode and looks for the other; the device whose
        /// name sorts first initiates, the other answers.
        case automatic
        /// Initiate with the device in pairing mode that has this name (any device when empty).
        case initiate(String)
        /// Pairing mode only: wait for a device to initiate.
        case accept
    }

    /// What happened.
    enum Event: Sendable {
        /// The pairing begins.
        case started
        /// A device in pairing mode: one seen lately, a new beacon, or one offered again after a failed attempt.
        case candidateSeen(PairingCandidate)
        /// The responder started as `generation` ended.
        case responderAnswered(generation: Int, Result<TrustStore, any Error>)
        /// The initiator started by the last ``Action/initiate(_:timeout:)`` ended.
        case initiatorFinished(Result<TrustStore, any Error>)
        /// The caller's timeout passed.
        case timedOut
        /// The program that asked to pair left the bus: nobody is left to confirm a code.
        case callerLeft
        /// The task running the pairing was cancelled (the daemon stops).
        case cancelled
    }

    /// What the daemon does next, in order.
    enum Action: Sendable {
        /// Enter pairing mode and answer (`HandoffEngine.acceptPairing`); report its end as
        /// ``Event/responderAnswered(generation:_:)`` with `generation`.
        case startResponder(generation: Int)
        /// Cancel the running responder and wait until it has ended.
        case stopResponder
        /// Pair with `candidate` as the initiator (`HandoffEngine.pair`, at most `timeout` between messages);
        /// report its end as ``Event/initiatorFinished(_:)``.
        case initiate(PairingCandidate, timeout: Duration)
        /// Report `candidate` as ``Event/candidateSeen(_:)`` again after `delay`: the device re-enters pairing
        /// mode with the same beacon, which BlueZ may not report again.
        case offerAgain(PairingCandidate, after: Duration)
        /// An attempt failed with `error` and is retried: say so in the log.
        case noteRetry(any Error)
        /// `candidate` failed every attempt, the last with `error`; it is set aside and the session goes on with
        /// the other devices in pairing mode: say so in the log.
        case noteSetAside(PairingCandidate, any Error)
        /// The pairing is over: return the store, or throw the error. Nothing is started any more; stop what
        /// runs.
        case finish(Result<TrustStore, any Error>)
    }

    /// Where the session is.
    enum State: Sendable {
        /// Before ``Event/started``.
        case idle
        /// Looking for a candidate; the responder answers when `responderRunning`.
        case waiting(responderRunning: Bool)
        /// Awaiting the initiator with `candidate`.
        case initiating(PairingCandidate)
        /// Over; every further event is ignored.
        case finished
    }

    /// How many failed attempts in a row are retried: over the air the first exchange right after a connection
    /// is sometimes lost; both sides then start over (the responder re-enters pairing mode, the initiator tries
    /// the candidate again). The responder's count is the session's; the initiator's is each candidate's, so
    /// beacons of devices that never answer (a stranger's, made up) cannot use up the real partner's.
    static let retries = 3
    /// The longest the initiator waits between two messages (the other user confirming the code included), so a
    /// lost exchange is retried within the caller's timeout.
    static let initiatorTimeout: Duration = .seconds(45)
    /// How long after a failed attempt its candidate is offered again.
    static let reofferDelay: Duration = .seconds(2)

    let role: Role
    /// This device's name.
    let ownName: String
    /// The caller's timeout, for the message when it passes.
    let timeout: Duration
    private(set) var state: State = .idle
    /// The other device's name, once a candidate has told it: shown with the pairing code.
    private(set) var peerName: String?
    /// The responder's generation: an answer of an earlier one is stale.
    private(set) var generation = 0
    /// The responder's retries left.
    private(set) var retriesLeft = Self.retries
    /// The initiator's retries left with each candidate tried (absent: all of them).
    private(set) var initiatorRetriesLeft: [PeerAddress: Int] = [:]
    /// Candidates that failed every attempt: their beacons are ignored from then on.
    private(set) var setAside: Set<PeerAddress> = []
    /// Devices in pairing mode seen and not set aside: each is being tried, waits in `deferred`, is offered again
    /// later, or may initiate itself.
    private var contenders: Set<PeerAddress> = []
    /// The failure that set the last candidate aside, for the message when the time is up.
    private var lastSetAside: (name: String, error: any Error)?
    /// Events that came while initiating, handled once the initiator has ended.
    private var deferred: [Event] = []

    init(role: Role, ownName: String, timeout: Duration) {
        self.role = role
        self.ownName = ownName
        self.timeout = timeout
    }

    /// Whether the session is over.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Takes `event` and returns what to do, in order.
    mutating func handle(_ event: Event) -> [Action] {
        if case .candidateSeen(let candidate) = event, !isFinished, !setAside.contains(candidate.peer),
           candidate.name != ownName {
            contenders.insert(candidate.peer)
        }
        switch state {
        case .initiating:
            guard case .initiatorFinished(let result) = event else {
                deferred.append(event)
                return []
            }
            var actions = initiatorFinished(result)
            // What waited during the attempt, in order, until the session is over or initiates again.
            while !deferred.isEmpty, case .waiting = state {
                actions += step(deferred.removeFirst())
            }
            return actions
        case .idle, .waiting, .finished:
            return step(event)
        }
    }

    /// One event outside `.initiating`.
    private mutating func step(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.finished, _), (.initiating, _):
            return []   // over; or kept for later by handle(_:)
        case (.idle, .started):
            return startResponder()
        case (.waiting, .started), (.idle, .candidateSeen), (.idle, .responderAnswered), (.idle, .initiatorFinished):
            return []   // started once; nothing runs before the start
        case (.waiting, .candidateSeen(let candidate)):
            return candidateSeen(candidate)
        case (.waiting, .responderAnswered(let answered, .success(let store))):
            // Also from a responder just stopped for an initiator: the pairing it completed stands.
            guard answered == generation else { return [] }
            return finish(.success(store))
        case (.waiting(let running), .responderAnswered(let answered, .failure(let error))):
            guard answered == generation, running else { return [] }
            guard retry(error) else { return finish(.failure(error)) }
            return [.noteRetry(error)] + startResponder()
        case (.waiting, .initiatorFinished):
            return []   // no initiator runs
        case (.idle, .timedOut), (.waiting, .timedOut):
            var message = "no device paired within \(timeout.components.seconds) s"
            if let (name, error) = lastSetAside {
                let those = setAside.count == 1 ? "1 device" : "\(setAside.count) devices"
                message += " (\(those) in pairing mode never paired; the last, '\(name)': \(Self.describe(error)))"
            }
            return finish(.failure(HandoffError(.pairingFailed, message)))
        case (.idle, .callerLeft), (.waiting, .callerLeft):
            return finish(.failure(HandoffError(.pairingFailed, "the program that asked to pair went away")))
        case (.idle, .cancelled), (.waiting, .cancelled):
            return finish(.failure(HandoffError(.pairingFailed, "pairing was cancelled")))
        }
    }

    /// A device in pairing mode: initiate with it when the role says so.
    private mutating func candidateSeen(_ candidate: PairingCandidate) -> [Action] {
        guard case .waiting(let running) = state, !setAside.contains(candidate.peer) else { return [] }
        let initiate: Bool
        switch role {
        case .accept:
            peerName = candidate.name
            initiate = false
        case .initiate(let name):
            initiate = name.isEmpty || candidate.name == name
        case .automatic:
            guard candidate.name != ownName else {
                return finish(.failure(HandoffError(.pairingFailed, "both devices are named '\(ownName)'; start one "
                    + "with another --name")))
            }
            peerName = candidate.name
            initiate = ownName < candidate.name
        }
        guard initiate else { return [] }
        peerName = candidate.name
        state = .initiating(candidate)
        return (running ? [.stopResponder] : [])
            + [.initiate(candidate, timeout: min(timeout, Self.initiatorTimeout))]
    }

    /// The initiator ended: paired, failed for good, or failed in a way both sides retry.
    private mutating func initiatorFinished(_ result: Result<TrustStore, any Error>) -> [Action] {
        guard case .initiating(let candidate) = state else { return [] }
        state = .waiting(responderRunning: false)
        switch result {
        case .success(let store):
            return finish(.success(store))
        case .failure(let error):
            guard Self.isRetried(error) else { return finish(.failure(error)) }
            let left = initiatorRetriesLeft[candidate.peer, default: Self.retries]
            if left > 0 {
                initiatorRetriesLeft[candidate.peer] = left - 1
                return [.noteRetry(error)] + startResponder() + [.offerAgain(candidate, after: Self.reofferDelay)]
            }
            // This one never answered: go on with the others, if any has been seen.
            setAside.insert(candidate.peer)
            contenders.remove(candidate.peer)
            initiatorRetriesLeft[candidate.peer] = nil
            lastSetAside = (candidate.name, error)
            guard !contenders.isEmpty else { return finish(.failure(error)) }
            return [.noteSetAside(candidate, error)] + startResponder()
        }
    }

    /// Starts a new generation of the responder unless the role only initiates.
    private mutating func startResponder() -> [Action] {
        if case .initiate = role {
            state = .waiting(responderRunning: false)
            return []
        }
        generation += 1
        state = .waiting(responderRunning: true)
        return [.startResponder(generation: generation)]
    }

    /// Whether the responder's `error` is one it is retried after, taking one retry when it is.
    private mutating func retry(_ error: any Error) -> Bool {
        guard Self.isRetried(error), retriesLeft > 0 else { return false }
        retriesLeft -= 1
        return true
    }

    /// Whether `error` says an exchange was lost (one more attempt may get through), not that pairing failed.
    private static func isRetried(_ error: any Error) -> Bool {
        guard let error = error as? HandoffError else { return false }
        return [.connectionUnavailable, .remoteApplicationTimedOut].contains(error.code)
    }

    private static func describe(_ error: any Error) -> String {
        (error as? HandoffError)?.message ?? ErrorChain.text(error)
    }

    private mutating func finish(_ result: Result<TrustStore, any Error>) -> [Action] {
        state = .finished
        deferred = []
        contenders = []
        return [.finish(result)]
    }
}
