import DBus
import FoundationEssentials
import HandoffClient
import HandoffDBusClient
import HandoffKit

/// The handoff service: one `HandoffEngine` over an injected radio, its trust store and sequence persisted in a
/// state directory, and the `org.handoff.Handoff1` D-Bus API (Docs/dbus-api.md) on a connection.
///
/// The trust group belongs to one Unix user, the one who paired (``DaemonState/ownerUID``). Only that user may
/// offer, list, watch and continue activities, see devices and pair or unpair; everybody else gets
/// `org.handoff.Error.AccessDenied`. Before the first pairing any user may offer an activity, but never replace or
/// resign another user's.
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
    let radio: ProgressRadio
    let engine: HandoffEngine
    let delegate: DaemonContinuationDelegate
    let notifier: DesktopNotifier?
    let logger: DaemonLogger
    /// The one clock of the daemon and its engine (`configuration.clock`).
    nonisolated let clock: any HandoffClock

    var persisted: DaemonState
    var offer: Offer?
    var watchers: [BusName: Watcher] = [:]
    var announced: [UUID: ActivitySummary] = [:]
    var lastSeen: [UUID: Date] = [:]
    var titles: [String: String] = [:]
    var pairingBusy = false
    var confirmations: [String: PendingConfirmation] = [:]
    var availabilityTask: Task<Void, Never>?
    var candidateTask: Task<Void, Never>?
    var trustTask: Task<Void, Never>?
    var recentCandidates: [String: (candidate: PairingCandidate, seen: Date)] = [:]
    var pairingEvents: AsyncStream<PairingSession.Event>.Continuation?
    var sharing: Sharing?

    /// The caller's current activity.
    struct Offer {
        let id: String
        let uid: UInt32
        var activity: UserActivity
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
         state: StateDirectory, radio: ProgressRadio, engine: HandoffEngine, delegate: DaemonContinuationDelegate,
         notifier: DesktopNotifier?, logger: DaemonLogger, persisted: DaemonState) {
        self.configuration = configuration
        self.connection = connection
        self.callers = callers
        self.state = state
        self.radio = radio
        self.engine = engine
        self.delegate = delegate
        self.notifier = notifier
        self.logger = logger
        self.clock = configuration.clock
        self.persisted = persisted
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
        let persisted = try state.loadState()
        let trust = try state.loadTrust(deviceName: configuration.deviceName)
        var handoff = configuration.handoff
        let seconds = UInt32(clamping: Int(configuration.clock.date.timeIntervalSince1970))
        handoff.initialSequence = max(seconds, (persisted.lastSequence ?? 0) &+ 1)
        let progressRadio = ProgressRadio(radio)
        let delegate = DaemonContinuationDelegate(logger: logger)
        let engine = try HandoffEngine(configuration: handoff, trust: trust, radio: progressRadio, delegate: delegate)
        try await engine.start()
        let daemon = HandoffDaemon(
            configuration: configuration, connection: connection,
            callers: callers ?? BusCallerIdentity(connection: connection), state: state, radio: progressRadio,
            engine: engine, delegate: delegate, notifier: notifier, logger: logger, persisted: persisted)
        try await daemon.begin()
        logger.log("'\(trust.identity.name)' ready: \(trust.devices.count) paired device(s), owner uid "
            + (persisted.ownerUID.map(String.init) ?? "none yet") + ", state in \(configuration.stateDirectory.path)")
        return daemon
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
                    logger.error("cannot save the trust store: \(error)")
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

    /// Throws AccessDenied unless `uid` may use this device's trust group.
    func authorize(_ uid: UInt32, _ action: String) throws {
        if let owner = persisted.ownerUID, owner != uid {
            throw DaemonError.accessDenied("user \(uid) may not \(action): this device's trust group belongs to user "
                + "\(owner), who paired it")
        }
    }

    /// Saves the daemon state; a failure is logged (the daemon keeps running with what it has in memory).
    func saveState() {
        do {
            try state.saveState(persisted)
        } catch {
            logger.error("cannot save state: \(error)")
        }
    }
}
