import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

/// The handoff service: one `HandoffEngine` over an injected radio, its trust store and sequence persisted in a
/// state directory, and the `org.handoff.Handoff1` D-Bus API (Docs/dbus-api.md) on a connection.
///
/// The trust group belongs to one Unix user, the owner (``Ownership``), decided before any device is paired. Every
/// D-Bus method passes one gate, ``admit(_:to:_:)``: only the owner and root may offer, list, watch and continue
/// activities, see devices, share and pair or unpair; everybody else gets `org.handoff.Error.AccessDenied`, and
/// a daemon with no owner yet answers them only Status, and Pair, which claims it.
///
/// ```swift
/// let daemon = try await HandoffDaemon.launch(configuration: configuration, radio: radio, connection: bus)
/// try await daemon.claimName()      // org.handoff.Handoff1
/// ```
public actor HandoffDaemon {
    /// The configuration given at launch.
    public nonisolated let configuration: DaemonConfiguration
    /// The connection the API is exported on.
    public nonisolated let connection: Connection
    let callers: any CallerIdentifying
    let state: StateDirectory
    let engine: HandoffEngine
    let delegate: DaemonContinuationDelegate
    let notifier: DesktopNotifier?
    let logger: DaemonLogger
    /// The one clock of the daemon and its engine (`configuration.clock`).
    nonisolated let clock: any HandoffClock

    var persisted: DaemonState
    /// Who may use the daemon; changed only by ``admit(_:to:_:)`` (a claim) and at launch.
    var ownership: Ownership
    var offer: Offer?
    var watchers: [BusName: Watcher] = [:]
    var announced: [UUID: ActivitySummary] = [:]
    var lastSeen: [UUID: Date] = [:]
    var titles: [String: String] = [:]
    /// The app declared for each type (`DeclareActivityType`'s `App`), by type.
    var declaredApps: [String: String] = [:]
    var pairingBusy = false
    var confirmations: [String: PendingConfirmation] = [:]
    var availabilityTask: Task<Void, Never>?
    var candidateTask: Task<Void, Never>?
    var trustTask: Task<Void, Never>?
    var recentCandidates: [String: (candidate: PairingCandidate, seen: Date)] = [:]
    var pairingEvents: AsyncStream<PairingSession.Event>.Continuation?
    var sharing: Sharing?
    /// `ShareStream`s being read now, each on a thread of its own (`ShareSettings.maximumOpenStreams`).
    var openShareStreams = 0

    /// The caller's current activity.
    struct Offer {
        let id: String
        let uid: UInt32
        /// The name of the process that offered it (`/proc/PID/comm`), when the bus and /proc told.
        let process: String?
        /// The connection that offered it: told when a peer continues it (`CurrentActivityContinued`).
        let sender: BusName?
        var activity: UserActivity
        /// The size of the userInfo bytes the caller sent: what Status reports, without encoding them again.
        var userInfoSize: Int
        var resignTask: Task<Void, Never>?
    }

    /// A connection that asked for ActivityAppeared/ActivityDisappeared.
    struct Watcher {
        let uid: UInt32
        let task: Task<Void, Never>
    }

    /// A pairing code waiting for the user's answer through ConfirmPairing.
    struct PendingConfirmation {
        let uid: UInt32
        let continuation: CheckedContinuation<Bool, Never>
    }

    init(configuration: DaemonConfiguration, connection: Connection, callers: any CallerIdentifying,
         state: StateDirectory, engine: HandoffEngine, delegate: DaemonContinuationDelegate,
         notifier: DesktopNotifier?, logger: DaemonLogger, persisted: DaemonState, ownership: Ownership) {
        self.configuration = configuration
        self.connection = connection
        self.callers = callers
        self.state = state
        self.engine = engine
        self.delegate = delegate
        self.notifier = notifier
        self.logger = logger
        self.clock = configuration.clock
        self.persisted = persisted
        self.ownership = ownership
    }

    /// Loads (or creates) the state, starts the engine over `radio` and exports the API on `connection`.
    /// Call ``claimName()`` afterwards to own `org.handoff.Handoff1`.
    /// - Parameters:
    ///   - callers: who is calling; by default the bus's own answer (`GetConnectionUnixUser`).
    ///   - notifier: desktop notifications for new activities, if any.
    public static func launch(configuration: DaemonConfiguration, radio: any Radio, connection: Connection,
                              callers: (any CallerIdentifying)? = nil, notifier: DesktopNotifier? = nil,
                              logger: DaemonLogger = .standardError) async throws -> HandoffDaemon {
        let state = StateDirectory(configuration.stateDirectory)
        try state.prepare()
        // state.json first: loading the trust store may write it (a new store, a renamed device), and a start
        // refused for a bad state.json must leave every file as it was.
        var persisted = try state.loadState()
        let trust = try state.loadTrust(deviceName: configuration.deviceName)
        let ownership = try decideOwnership(configuration: configuration, state: state, persisted: &persisted,
                                            pairedDevices: trust.devices.count, logger: logger)
        var handoff = configuration.handoff
        let seconds = UInt32(clamping: Int(configuration.clock.date.timeIntervalSince1970))
        handoff.initialSequence = max(seconds, (persisted.lastSequence ?? 0) &+ 1)
        // Each step of a fast-lane attempt on a line of its own, at info (escaped like every line: `log`).
        handoff.fastLane?.report = { event in logger.log(event.description) }
        let delegate = DaemonContinuationDelegate(logger: logger)
        let engine = try HandoffEngine(configuration: handoff, trust: trust, radio: radio, delegate: delegate)
        try await engine.start()
        let daemon = HandoffDaemon(
            configuration: configuration, connection: connection,
            callers: callers ?? BusCallerIdentity(connection: connection), state: state, engine: engine,
            delegate: delegate, notifier: notifier, logger: logger, persisted: persisted, ownership: ownership)
        try await daemon.begin()
        let owner = switch ownership {
        case .unclaimed: "none yet (the first 'handoff pair' claims it)"
        case .owned(let uid): "uid \(uid)"
        case .locked: "unknown, root only"
        }
        logger.log("'\(trust.identity.name)' ready: \(trust.devices.count) paired device(s), owner \(owner), state in "
            + configuration.stateDirectory.path)
        if case .locked(let reason) = ownership { logger.error(reason) }
        return daemon
    }

    /// The owner at start: the administrator's (`--owner`, written before the engine starts or the API is exported,
    /// so a failed write stops the start), else the recorded one. An owner moved from an older `state.json` to
    /// `owner.json` is cleared there.
    private static func decideOwnership(configuration: DaemonConfiguration, state: StateDirectory,
                                        persisted: inout DaemonState, pairedDevices: Int, logger: DaemonLogger) throws
        -> Ownership {
        let now = configuration.clock.date
        var ownership = state.loadOwnership(pairedDevices: pairedDevices, legacyOwner: persisted.ownerUID, now: now)
        if let owner = configuration.owner, ownership != .owned(uid: owner) {
            do {
                try state.saveOwner(OwnerRecord(uid: owner, origin: .configured, decidedAt: now))
            } catch {
                throw DaemonError.failed("cannot record uid \(owner) (--owner) as the owner", cause: error)
            }
            logger.notice("owner set to uid \(owner) by --owner")
            ownership = .owned(uid: owner)
        }
        if persisted.ownerUID != nil, FileManager.default.fileExists(atPath: state.ownerFile.path) {
            persisted.ownerUID = nil
            try? state.saveState(persisted)
        }
        return ownership
    }

    /// Owns `org.handoff.Handoff1` on the connection's bus.
    /// - Throws: `DBusError` `.nameTaken` when another daemon has it, `.accessDenied` when the policy says no.
    public func claimName() async throws {
        _ = try await connection.requestName(HandoffBusAPI.busName)
        logger.log("owns \(HandoffBusAPI.busName)")
    }

    /// Stops the engine and withdraws the API.
    public func stop() async {
        availabilityTask?.cancel()
        candidateTask?.cancel()
        trustTask?.cancel()
        stopSharing()
        for watcher in watchers.values { watcher.task.cancel() }
        watchers = [:]
        offer?.resignTask?.cancel()
        offer = nil
        for pending in confirmations.values { pending.continuation.resume(returning: false) }
        confirmations = [:]
        await engine.stop()
        _ = try? connection.unexport(HandoffBusAPI.objectPath)
    }

    /// This device's trust state.
    public var trust: TrustStore {
        get async { await engine.trust }
    }

    private func begin() async throws {
        try await startSharing()
        try await connection.export([makeInterface()], at: HandoffBusAPI.objectPath)
        delegate.continued.withLock {
            $0 = { [weak self] activity, requests in
                Task { await self?.offerWasContinued(activity, requests: requests) }
            }
        }
        let updates = await engine.availabilityUpdates()
        availabilityTask = Task { [weak self] in
            for await remote in updates {
                await self?.announce(remote)
            }
        }
        // Every trust change (pairing, revocation, a new group key from a peer) is saved as it happens.
        let trustChanges = await engine.trustUpdates()
        let state = self.state
        let logger = self.logger
        trustTask = Task {
            for await store in trustChanges {
                do {
                    try state.saveTrust(store)
                } catch {
                    logger.error("cannot save the trust store: \(ErrorChain.text(error))")
                }
            }
        }
        // A pairing beacon is reported once, when it starts; remember them, so a device that enters pairing
        // mode second still learns of the one that entered first.
        let candidates = await engine.pairingCandidates()
        candidateTask = Task { [weak self] in
            for await candidate in candidates {
                await self?.remember(candidate)
            }
        }
    }

    /// Saves the last beacon sequence; a failure is logged (the daemon keeps running with what it has in memory, and
    /// the next start begins above the clock anyway).
    func saveState() {
        do {
            try state.saveState(persisted)
        } catch {
            logger.error("cannot save state: \(ErrorChain.text(error))")
        }
    }
}
