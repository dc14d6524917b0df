import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import HandoffShared

/// HandoffKit's `Radio` over BlueZ on whichever adapter ``AdapterChoice`` picks, following it as adapters come and
/// go: a ``BlueZRadio`` on the adapter in use does the work, and when the choice moves to another adapter a new one
/// takes over what the old one carried.
///
/// ```swift
/// let radio = try await FollowingBlueZRadio.connect(.automatic)          // the system bus
/// let engine = try HandoffEngine(configuration: configuration, trust: store, radio: radio, delegate: delegate)
/// ```
///
/// On a move the current beacon is advertised on the new adapter, every scan stream stays open and is fed from the
/// new adapter's scan (the beacons it knows come first), and an open transfer service is published there with its
/// `writes` going on. Links on the old adapter end with it, as on a disconnection. While no adapter is in use,
/// `advertise` and `scan` remember what was asked and take effect on the next one, the transfer service opens with
/// nothing under it, and `connect` fails with `.unreachable`. While an adapter is in use and stays, every call
/// behaves as the ``BlueZRadio``'s on it, errors included.
///
/// Peers are named by their Bluetooth address (`00:AA:01:00:00:00`) rather than a BlueZ device path, which names
/// the adapter: the engine knows a peer by that name, so a peer heard again on another adapter is the same peer.
/// The radio never switches on an adapter it did not take up (``BlueZRadioOptions/powerOn`` applies to each adapter
/// it takes up, once). Each move is one notice line (``BlueZRadioOptions/notice``).
public actor FollowingBlueZRadio: Radio {
    /// The BlueZ connection the radio uses.
    public nonisolated let bluez: BlueZ
    /// The options every ``BlueZRadio`` it makes gets.
    public nonisolated let options: BlueZRadioOptions
    /// The rule, and what it chose.
    public private(set) var choice: AdapterChoice
    /// The radio on the adapter in use, nil while there is none.
    public private(set) var radio: BlueZRadio?
    /// Counts the radios taken up, so that work for a radio that has been let go is dropped.
    var generation: UInt64 = 0
    /// The beacon to advertise, on whichever adapter is in use.
    var beacon: [UInt8]?
    /// Advertising operations, one at a time in call order (``serially(_:)``).
    var advertising = SerialTasks()
    var scanners: [UUID: Scanner] = [:]
    var service: FollowingTransferService?
    var serviceInner: (any TransferService)?
    var serviceTasks: [Task<Void, Never>] = []
    var watch: Task<Void, Never>?
    /// The instant a settle timer waits for, so one is not set twice.
    var timerDeadline: HandoffInstant?
    /// The adapter let go last, until the line saying what replaced it (``decideOnce()``).
    var letGo: AdapterChoice.Adapter?
    /// The adapters used so far, by address, to say so when one comes back.
    var used: [BluetoothAddress: AdapterChoice.Adapter] = [:]
    /// Adapters in a row that could not be taken up (each is tried again after the settle time; the first failure
    /// and every tenth are said).
    var failedTakes = 0
    var deciding = false
    var decideAgain = false
    var closed = false

    /// One scan stream and the task that feeds it from the radio in use.
    struct Scanner {
        let continuation: AsyncStream<ScanEvent>.Continuation
        var pump: Task<Void, Never>?
    }

    init(request: AdapterChoice.Request, bluez: BlueZ, options: BlueZRadioOptions) {
        self.bluez = bluez
        self.options = options
        choice = AdapterChoice(request: request, settle: options.adapterSettle)
    }

    /// A radio on `bluez` that follows `request`: it takes up the adapter the rule picks among those present now,
    /// if any, before it returns, and watches adapters come and go from then on.
    public static func follow(_ request: AdapterChoice.Request, bluez: BlueZ,
                              options: BlueZRadioOptions = BlueZRadioOptions()) async -> FollowingBlueZRadio {
        let radio = FollowingBlueZRadio(request: request, bluez: bluez, options: options)
        await radio.start()
        return radio
    }

    /// Connects to `bus` (the system bus by default) and returns a radio that follows `request`. No adapter, or no
    /// bluetoothd, is not an error: the radio waits for one.
    /// - Throws: `RadioError` `.failed` when the bus cannot be reached.
    public static func connect(_ request: AdapterChoice.Request, bus: Connection.Bus = .system,
                               options: BlueZRadioOptions = BlueZRadioOptions()) async throws(RadioError)
        -> FollowingBlueZRadio {
        let bluez: BlueZ
        do {
            bluez = try await BlueZ.connect(bus: bus, log: options.log, clock: options.clock)
        } catch {
            throw RadioError(error, while: "cannot reach BlueZ")
        }
        return await follow(request, bluez: bluez, options: options)
    }

    /// The adapter in use now, for `handoff status`.
    public struct AdapterInUse: Sendable, Equatable {
        /// Where it is (`hci1`).
        public var name: String
        /// Its address.
        public var address: BluetoothAddress?
        /// Whether it is switched on (false while bluetoothd is away).
        public var powered: Bool
    }

    /// The adapter in use, nil when there is none.
    public func adapterInUse() async -> AdapterInUse? {
        guard let radio else { return nil }
        let properties = await bluez.adapters().first { $0.path == radio.adapter.path }
        return AdapterInUse(name: radio.adapterName, address: choice.current?.address ?? properties?.address,
                            powered: properties?.powered ?? false)
    }

    /// What the radio on the adapter in use scans with (nil while none scans).
    public var scanningState: ScanningState? {
        get async { await radio?.scanningState }
    }

    /// Stops following, lets go of the adapter in use (its radio stops advertising and scanning, its part of the
    /// transfer service is withdrawn) and ends every scan stream. The transfer service is closed by its owner.
    public func close() async {
        closed = true
        watch?.cancel()
        watch = nil
        for scanner in scanners.values {
            scanner.pump?.cancel()
            scanner.continuation.finish()
        }
        scanners = [:]
        let old = radio
        await detach()
        await old?.close()
    }

    // MARK: Following

    func start() async {
        let events = await bluez.adapterEvents()
        watch = Task { [weak self] in
            for await event in events {
                switch event {
                case .added, .removed, .powered: await self?.reconsider()
                case .discovering: continue
                }
            }
        }
        await reconsider()
        if radio == nil { notice("no adapter; \(choice.summary)") }
    }

    /// Decides again, one decision at a time: a call that comes while one runs makes it run once more.
    func reconsider() async {
        guard !deciding else {
            decideAgain = true
            return
        }
        deciding = true
        defer { deciding = false }
        repeat {
            decideAgain = false
            await decideOnce()
        } while decideAgain && !closed
    }

    private func decideOnce() async {
        guard !closed else { return }
        let present = await bluez.adapters().map(AdapterChoice.Adapter.init)
        let bluetoothd = await bluez.owner?.rawValue
        let previous = choice.current
        switch choice.decide(present: present, bluetoothd: bluetoothd, now: options.clock.now) {
        case .stay:
            break
        case .wait(let deadline):
            setTimer(deadline)
        case .use(let adapter):
            await use(adapter, after: previous ?? letGo, present: present)
            letGo = nil
        case .release:
            let old = radio
            await detach()
            await old?.close()
            letGo = previous
            decideAgain = true          // another adapter may stand in, after the settle time
        }
        // The adapter let go is named in the line of the one that takes over, or here when none can.
        if let gone = letGo, choice.current == nil, choice.target(among: present) == nil {
            notice("adapter \(gone.text) went away; no adapter, \(choice.summary)")
            letGo = nil
        }
    }

    /// Decides again at `deadline` (a change that must last ``AdapterChoice/settle``). The timer is never
    /// cancelled: it may fire for a change that is no longer pending, and then decides to stay.
    private func setTimer(_ deadline: HandoffInstant) {
        guard timerDeadline != deadline else { return }
        timerDeadline = deadline
        Task { [weak self, clock = options.clock] in
            try? await clock.sleep(until: deadline)
            await self?.timerFired(deadline)
        }
    }

    private func timerFired(_ deadline: HandoffInstant) async {
        if timerDeadline == deadline { timerDeadline = nil }
        await reconsider()
    }

    /// Lets go of the radio in use and takes up `adapter`, moving to it what the old one carried.
    private func use(_ adapter: AdapterChoice.Adapter, after previous: AdapterChoice.Adapter?,
                     present: [AdapterChoice.Adapter]) async {
        let old = radio
        await detach()
        await old?.close()
        let taken: BlueZRadio
        do {
            let handle = try await bluez.adapter(named: adapter.name)
            taken = await BlueZRadio(adapter: handle, bluez: bluez, options: options)
        } catch {
            choice.couldNotUse()
            failedTakes += 1
            if failedTakes == 1 || failedTakes.isMultiple(of: 10) {
                notice("cannot use \(adapter.text) (\(ErrorChain.text(error))); trying again")
            }
            decideAgain = true      // the next decision waits the settle time, so this is no busy loop
            return
        }
        failedTakes = 0
        guard !closed else {        // closed while the radio was being made
            await taken.close()
            return
        }
        radio = taken
        let cameBack = adapter.address.flatMap { used[$0] }
        notice(Self.moveText(to: adapter, from: previous ?? cameBack, present: present, summary: choice.summary))
        if let address = adapter.address { used[address] = adapter }
        attach(taken)
    }

    /// The notice for taking up `adapter`: `previous` is the adapter let go for it, or the last one used, when
    /// there is one.
    static func moveText(to adapter: AdapterChoice.Adapter, from previous: AdapterChoice.Adapter?,
                         present: [AdapterChoice.Adapter], summary: String) -> String {
        guard let previous else { return "using \(adapter.text): \(summary)" }
        if previous.address != nil, previous.address == adapter.address {
            return "adapter \(adapter.address.map { "\($0)" } ?? adapter.name) is back as \(adapter.name); using it"
        }
        if present.contains(where: { $0.isSame(as: previous) }) {
            return "adapter \(adapter.address.map { "\($0)" } ?? adapter.name) is back as \(adapter.name); using it "
                + "again in place of \(previous.text)"
        }
        return "adapter \(previous.text) went away; using \(adapter.text)"
    }

    /// Drops everything tied to the radio in use (scan pumps, its part of the transfer service) and forgets it.
    private func detach() async {
        radio = nil
        generation += 1
        for id in scanners.keys {
            scanners[id]?.pump?.cancel()
            scanners[id]?.pump = nil
        }
        for task in serviceTasks { task.cancel() }
        serviceTasks = []
        let inner = serviceInner
        serviceInner = nil
        await inner?.close()
    }

    /// Puts on `radio` what the radio carries: the beacon, the scans and the transfer service.
    private func attach(_ radio: BlueZRadio) {
        let generation = self.generation
        Task { try? await self.serially { radio in await radio.advertiseCurrentBeacon() } }
        for id in scanners.keys { feed(id, from: radio, generation: generation, first: nil) }
        if service != nil { publishService(on: radio, generation: generation) }
    }

    // MARK: Advertising

    /// Advertises `beacon` on the adapter in use, and on each adapter taken up later. Calls run one after another.
    /// - Throws: `RadioError` as ``BlueZRadio/advertise(_:)`` when an adapter is in use (the beacon is still the
    ///   one taken to the next adapter); nothing when none is.
    public func advertise(_ beacon: [UInt8]) async throws {
        guard beacon.count == WireProtocol.beaconLength else {
            throw RadioError(.failed, "a beacon must be \(WireProtocol.beaconLength) bytes, got \(beacon.count)")
        }
        self.beacon = beacon
        try await serially { radio in try await radio.radio?.advertise(beacon) }
    }

    /// Stops advertising, here and on later adapters. Idempotent.
    public func stopAdvertising() async {
        beacon = nil
        try? await serially { radio in await radio.radio?.stopAdvertising() }
    }

    /// Advertises the current beacon on the radio in use (after a move), or nothing when there is none.
    private func advertiseCurrentBeacon() async {
        guard let radio, let beacon else { return }
        do {
            try await radio.advertise(beacon)
        } catch {
            notice("cannot advertise on \(radio.adapterName) (\(ErrorChain.text(error))); the beacon goes on the air when it is on")
        }
    }

    /// Runs advertising operations one at a time, in call order, although the actor is reentrant: a beacon taken
    /// to a new adapter never overtakes a newer one.
    private func serially(_ body: @escaping @Sendable (FollowingBlueZRadio) async throws -> Void) async throws {
        try await advertising.enqueue { [self] in try await body(self) }.value.get()
    }

    // MARK: Scanning

    /// Beacons from other devices, on whichever adapter is in use, until the consumer stops: a move ends nothing,
    /// the stream goes on with what the new adapter hears (the beacons it already knows first). Peers are named by
    /// their address.
    /// - Throws: `RadioError` as ``BlueZRadio/scan()`` when an adapter is in use; nothing when none is.
    public func scan() async throws -> AsyncStream<ScanEvent> {
        let generation = self.generation
        let first = try await radio?.scan()
        let (stream, continuation) = AsyncStream<ScanEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        scanners[id] = Scanner(continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeScanner(id) }
        }
        if let radio {
            // A move while the first scan started took the scanner's place on the new radio's scan instead.
            let current = self.generation
            feed(id, from: radio, generation: current, first: current == generation ? first : nil)
        }
        return stream
    }

    /// Reports `peer`'s next advertisement even if unchanged, once, on the adapter in use (`Radio`).
    public func reportNextAdvertisement(of peer: PeerAddress) async {
        await radio?.reportNextAdvertisement(of: Self.peerName(peer))
    }

    /// Feeds scanner `id` from `radio`'s scan (`first`, when the caller started it): a scan refused by bluetoothd
    /// is tried again, 500 ms apart at first and at most 10 s apart later, while the radio is in use.
    private func feed(_ id: UUID, from radio: BlueZRadio, generation: UInt64, first: AsyncStream<ScanEvent>?) {
        scanners[id]?.pump?.cancel()
        scanners[id]?.pump = Task { [weak self, clock = options.clock] in
            var events = first
            var pause: Duration = .milliseconds(500)
            var failures = 0
            while events == nil {
                do {
                    events = try await radio.scan()
                } catch {
                    failures += 1
                    if failures == 1 || failures.isMultiple(of: 10) {
                        self?.notice("cannot scan on \(radio.adapterName) (\(ErrorChain.text(error))); trying again")
                    }
                    do { try await clock.sleep(for: pause) } catch { return }
                    pause = min(pause * 2, .seconds(10))
                }
            }
            guard let events else { return }
            for await event in events {
                await self?.deliver(event, to: id, generation: generation)
            }
        }
    }

    private func deliver(_ event: ScanEvent, to id: UUID, generation: UInt64) {
        guard generation == self.generation, let scanner = scanners[id] else { return }
        scanner.continuation.yield(ScanEvent(peer: Self.peerName(event.peer), beacon: event.beacon, rssi: event.rssi))
    }

    private func removeScanner(_ id: UUID) {
        scanners.removeValue(forKey: id)?.pump?.cancel()
    }

    /// A peer's name that does not depend on the adapter: the address in a BlueZ device path
    /// (`/org/bluez/hci1/dev_00_AA_01_00_00_00` → `00:AA:01:00:00:00`); anything else as it is.
    static func peerName(_ peer: PeerAddress) -> PeerAddress {
        guard peer.rawValue.hasPrefix("/"), let last = peer.rawValue.split(separator: "/").last,
              last.hasPrefix("dev_"),
              let address = BluetoothAddress(String(last.dropFirst(4)).replacing("_", with: ":")) else { return peer }
        return PeerAddress(address.string)
    }

    // MARK: Transfer service

    /// Publishes the transfer service on the adapter in use, and on each adapter taken up later; its `writes` go on
    /// across moves and finish only when it is closed.
    /// - Throws: `RadioError` `.failed` when a service is already open, or as ``BlueZRadio/openTransferService()``
    ///   when an adapter is in use.
    public func openTransferService() async throws -> any TransferService {
        guard service == nil else { throw RadioError(.failed, "the transfer service is already open") }
        let opened = FollowingTransferService(radio: self)
        service = opened
        guard let radio else { return opened }
        let generation = self.generation
        let inner: any TransferService
        do {
            inner = try await radio.openTransferService()
        } catch {
            if service === opened { service = nil }
            throw error
        }
        await plug(inner, generation: generation)
        return opened
    }

    /// Opens the transfer service on `radio` after a move, trying again while bluetoothd refuses (500 ms apart at
    /// first, at most 10 s apart later) and the radio is in use.
    private func publishService(on radio: BlueZRadio, generation: UInt64) {
        serviceTasks.append(Task { [weak self, clock = options.clock] in
            var pause: Duration = .milliseconds(500)
            var failures = 0
            while !Task.isCancelled {
                do {
                    let inner = try await radio.openTransferService()
                    await self?.plug(inner, generation: generation)
                    return
                } catch {
                    failures += 1
                    if failures == 1 || failures.isMultiple(of: 10) {
                        self?.notice("cannot publish the transfer service on \(radio.adapterName) "
                            + "(\(ErrorChain.text(error))); trying again")
                    }
                    do { try await clock.sleep(for: pause) } catch { return }
                    pause = min(pause * 2, .seconds(10))
                }
            }
        })
    }

    /// Takes `inner` as the service's part on the radio in use and forwards its writes; closes it instead when the
    /// radio has been let go or the service closed meanwhile.
    private func plug(_ inner: any TransferService, generation: UInt64) async {
        guard generation == self.generation, !closed, let service, serviceInner == nil else {
            await inner.close()
            return
        }
        serviceInner = inner
        let continuation = service.continuation
        serviceTasks.append(Task {
            for await write in inner.writes { continuation.yield(write) }
        })
    }

    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        guard let serviceInner else {
            throw RadioError(.disconnected, "\(central) is gone: no Bluetooth adapter is in use")
        }
        try await serviceInner.notify(value, to: central)
    }

    func dropCentral(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async {
        await serviceInner?.drop(central, keepingAwayFor: cooldown)
    }

    func closeService(_ closing: FollowingTransferService) async {
        guard service === closing else { return }
        service = nil
        for task in serviceTasks { task.cancel() }
        serviceTasks = []
        let inner = serviceInner
        serviceInner = nil
        closing.continuation.finish()
        await inner?.close()
    }

    // MARK: Connecting

    /// Connects to `peer` (an address, or a device path, of whichever adapter) through the adapter in use.
    /// - Throws: `RadioError` `.unreachable` when no adapter is in use; otherwise as ``BlueZRadio/connect(to:)``.
    public func connect(to peer: PeerAddress) async throws -> any RadioLink {
        guard let radio else {
            throw RadioError(.unreachable, "cannot reach \(peer): no Bluetooth adapter is in use (\(choice.summary))")
        }
        return try await radio.connect(to: Self.peerName(peer))
    }

    /// A line worth a user's notice (`options.notice`, else the diagnostics).
    nonisolated func notice(_ text: String) {
        (options.notice ?? options.log)?(text)
    }
}

/// The transfer service of a ``FollowingBlueZRadio``: one `writes` stream for the service's whole life, fed by the
/// service of whichever adapter is in use.
final class FollowingTransferService: TransferService {
    let writes: AsyncStream<IncomingWrite>
    let continuation: AsyncStream<IncomingWrite>.Continuation
    /// The radio, until the service is closed (the radio holds the service while it is open).
    private let radio: FollowingBlueZRadio

    init(radio: FollowingBlueZRadio) {
        self.radio = radio
        (writes, continuation) = AsyncStream<IncomingWrite>.makeStream(bufferingPolicy: .unbounded)
    }

    /// Sends `value` to `central` through the service on the adapter in use.
    /// - Throws: `RadioError` `.disconnected` when no adapter is in use, or the central is gone.
    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        try await radio.notify(value, to: central)
    }

    /// Drops `central` through the service on the adapter in use; nothing when no adapter is in use.
    func drop(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async {
        await radio.dropCentral(central, keepingAwayFor: cooldown)
    }

    /// Withdraws the service and ends `writes`. Idempotent.
    func close() async {
        await radio.closeService(self)
    }
}
