import FoundationEssentials
import HandoffShared

/// Ties HandoffKit together over one `Radio`: advertises the current activity's beacon, serves its payload over the
/// transfer service, scans for trusted peers' beacons and continues their activities through the delegate.
///
/// The daemon creates one engine with the real radio; tests create several over `InMemoryRadio`s. Keep a strong
/// reference to the engine: its background tasks hold it weakly and stop when it is released.
public actor HandoffEngine {
    /// The configuration given at creation.
    public nonisolated let configuration: HandoffConfiguration
    let radio: any Radio
    /// The receiving-side delegate (held weakly).
    weak var delegate: (any ContinuationDelegate)?

    /// Current trust state; replace it with `updateTrust(_:)`.
    public private(set) var trust: TrustStore
    var keys: GroupKeys
    var beaconCodec: BeaconCodec
    var typeByTag: [[UInt8]: String] = [:]
    /// The types declared now: the configuration's, and those declared since (``declare(_:)``).
    public private(set) var declaredTypes: DeclaredActivityTypes

    // Source side.
    var current: UserActivity?
    var currentTag: [UInt8] = []
    var sequences: BeaconSequences
    /// The last sequence number advertised; persist it and start the next run above it.
    package var lastSequence: UInt32? { sequences.last }
    var rotationTask: Task<Void, Never>?
    var transfers: TransferCache
    var streams: [PeerAddress: Task<Void, Never>] = [:]
    /// The challenge each central's last authenticated REQUEST got (HandoffEngine+Server.swift).
    var requestChallenges: [PeerAddress: RequestChallenge] = [:]
    /// Centrals whose link is being dropped (`Gate.Writer.dropped`), each once until it is gone.
    var droppingCentrals: Set<PeerAddress> = []
    var service: (any TransferService)?
    var serviceTask: Task<Void, Never>?

    // Receiving side.
    var scanTask: Task<Void, Never>?
    var ledger = ActivityLedger()
    let availability = Broadcaster<RemoteActivity>()

    // Pairing.
    var pairingInbox: AsyncStream<PairingInboxEvent>.Continuation?
    let pairingCandidateBroadcast = Broadcaster<PairingCandidate>()

    // Revocation.
    var rekeys = RekeyDeliveries()
    /// Rekey messages being assembled, one per central (`RekeyAssemblies`); made with the configuration.
    var rekeyAssemblies: RekeyAssemblies
    let trustBroadcast = Broadcaster<TrustStore>()

    // Sharing (HandoffEngine+Share.swift).
    var share = ShareState()

    /// Creates an engine. Call `start()` before use.
    /// - Parameters:
    ///   - configuration: declared types, limits and timing.
    ///   - trust: this device's identity, group key and trusted devices.
    ///   - radio: the BLE implementation (HandoffBlueZ in the daemon, `InMemoryRadio` in tests).
    ///   - delegate: the receiving side's delegate (weak).
    public init(configuration: HandoffConfiguration, trust: TrustStore, radio: any Radio,
                delegate: (any ContinuationDelegate)? = nil) throws(HandoffError) {
        try Sodium.ensureInitialized()
        self.configuration = configuration
        self.radio = radio
        self.delegate = delegate
        self.trust = trust
        self.keys = GroupKeys(trust.group)
        self.beaconCodec = BeaconCodec(group: trust.group, devices: trust.devices.map(\.id))
        self.sequences = BeaconSequences(
            first: configuration.initialSequence ?? UInt32(clamping: Int(configuration.clock.date.timeIntervalSince1970)))
        self.declaredTypes = configuration.declaredTypes
        self.typeByTag = Self.tagTable(configuration.declaredTypes, keys: keys)
        self.transfers = TransferCache(capacity: configuration.cachedTransfers)
        self.rekeyAssemblies = RekeyAssemblies(quietLimit: configuration.pairingQuietLimit)
    }

    /// Where the engine reads time (`configuration.clock`).
    nonisolated var clock: any HandoffClock { configuration.clock }

    /// Replaces the receiving-side delegate.
    public func setDelegate(_ delegate: (any ContinuationDelegate)?) {
        self.delegate = delegate
    }

    /// Publishes the transfer service and starts scanning. Throws `radioFailure` when the radio refuses either.
    public func start() async throws(HandoffError) {
        guard service == nil else { return }
        let service: any TransferService
        let events: AsyncStream<ScanEvent>
        do {
            // The radio's service, with lane connections beside its centrals (the fast lane, Lane/LaneLink.swift).
            service = LaneService(base: try await radio.openTransferService())
        } catch {
            throw HandoffError(.radioFailure, "the radio could not publish the transfer service", cause: error)
        }
        do {
            events = try await radio.scan()
        } catch {
            await service.close()
            throw HandoffError(.radioFailure, "the radio could not start scanning", cause: error)
        }
        self.service = service
        serviceTask = Task { [weak self] in
            for await write in service.writes {
                guard let self else { return }
                if await self.handle(write) == .dropped { await self.drop(write.central, from: service) }
            }
        }
        scanTask = Task { [weak self] in
            for await event in events {
                await self?.handle(event)
            }
        }
    }

    /// Stops advertising, scanning and serving.
    public func stop() async {
        if let current { await resign(current) }
        scanTask?.cancel()
        serviceTask?.cancel()
        for task in streams.values { task.cancel() }
        streams = [:]
        await service?.close()
        service = nil
        availability.finishAll()
        pairingCandidateBroadcast.finishAll()
        trustBroadcast.finishAll()
        pairingInbox?.finish()
        stopSharing()
    }

    /// Installs new trust state (after pairing or revocation). Beacons and requests under the old group key stop
    /// being accepted at once.
    public func updateTrust(_ store: TrustStore) async throws(HandoffError) {
        try store.validate()
        trust = store
        keys = GroupKeys(store.group)
        beaconCodec = BeaconCodec(group: store.group, devices: store.devices.map(\.id))
        typeByTag = Self.tagTable(declaredTypes, keys: keys)
        transfers.removeAll()
        let trusted = Set(store.devices.map(\.id))
        ledger.keep(only: trusted)
        rekeys.keep(only: trusted)
        trustBroadcast.publish(store)
        if let current {
            currentTag = keys.typeTag(for: current.activityType)
            try? await advertiseCurrent()
        } else {
            await refreshPresence()   // a presence beacon under the old key would be unreadable to the new peers
        }
    }

    /// The activity currently offered, if any.
    public var currentActivity: UserActivity? { current }

    /// Declares one more activity type while the engine runs (an app that adopts handoff declares its type when it
    /// starts, as an app's Info.plist does on Apple platforms): from now on it may become current and be continued,
    /// and beacons of it are recognised. Declaring a declared type changes nothing.
    public func declare(_ type: String) throws(HandoffError) {
        guard !declaredTypes.contains(type) else { return }
        declaredTypes = try DeclaredActivityTypes(declaredTypes.types.union([type]))
        typeByTag[keys.typeTag(for: type)] = type
    }

    static func tagTable(_ types: DeclaredActivityTypes, keys: GroupKeys) -> [[UInt8]: String] {
        var table: [[UInt8]: String] = [:]
        for type in types.types { table[keys.typeTag(for: type)] = type }
        return table
    }
}
