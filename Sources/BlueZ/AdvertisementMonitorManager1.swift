import DBus
import FoundationEssentials
import HandoffShared

extension Adapter1 {
    /// Watches for advertisements matching `monitor`, without a discovery: an `org.bluez.AdvertisementMonitor1`
    /// exported under an ObjectManager root `/org/handoff/monitor<N>` and registered with this adapter's
    /// `AdvertisementMonitorManager1` (doc/org.bluez.AdvertisementMonitorManager.rst).
    ///
    /// bluetoothd then keeps the controller scanning passively and turns only matching advertisements into
    /// Device1 objects and property changes; other devices nearby cost us nothing on the bus. A controller with
    /// pattern offload (Microsoft or Android extensions) filters them itself; otherwise the kernel hands every
    /// report to bluetoothd, which filters in software. Events are those of ``scan(filter:)``: matching devices
    /// already known come first as `.appeared`, every device is re-checked with ``AdvertisementMonitor/matches(_:)``;
    /// and each later advertisement of a device already reported that changes nothing is `.heardAgain`.
    /// Ending the sequence unregisters the monitor.
    ///
    /// - Throws: ``BlueZError`` `.notSupported` when bluetoothd offers no monitor manager (5.66 does only with
    ///   `-E`) or no `or_patterns` type, `.invalidInput` for a bad pattern, `.timeout` when bluetoothd neither
    ///   activates nor releases the monitor within `activationTimeout`, `.failed` when it releases it (the kernel
    ///   refused it), and RegisterMonitor's own errors.
    public func monitor(_ monitor: AdvertisementMonitor, activationTimeout: Duration = .seconds(5))
        async throws(BlueZError) -> DeviceScan
    {
        try await bluez.monitor(monitor, on: self, activationTimeout: activationTimeout)
    }

    /// Whether bluetoothd offers advertisement monitors of type `or_patterns` on this adapter, as the mirror says.
    public func supportsAdvertisementMonitor() async -> Bool {
        await bluez.monitorSupport(on: path) == nil
    }
}

extension BlueZ {
    /// nil when `adapter` offers `or_patterns` monitors; otherwise why not.
    func monitorSupport(on adapter: ObjectPath) -> String? {
        guard let manager = tree.properties(adapter, BlueZNames.advertisementMonitorManager1) else {
            return "bluetoothd offers no \(BlueZNames.advertisementMonitorManager1) on \(adapter) "
                + "(bluetoothd offers it only with its experimental interfaces on: -E, or Experimental = true in "
                + "main.conf; seen so on BlueZ 5.66 and 5.82)"
        }
        let types = (try? manager["SupportedMonitorTypes"]?.get([String].self)) ?? []
        guard types.contains(AdvertisementMonitor.orPatterns) else {
            return "bluetoothd's monitor manager on \(adapter) supports \(types), not or_patterns"
        }
        return nil
    }

    /// Whether `adapter` offloads pattern matching to its controller (`SupportedFeatures`
    /// `controller-based-monitor-by-patterns`), as the mirror says.
    public func monitorOffloaded(on adapter: Adapter1) -> Bool {
        let manager = tree.properties(adapter.path, BlueZNames.advertisementMonitorManager1)
        let features = (try? manager?["SupportedFeatures"]?.get([String].self)) ?? []
        return features.contains("controller-based-monitor-by-patterns")
    }

    func monitor(_ monitor: AdvertisementMonitor, on adapter: Adapter1, activationTimeout: Duration)
        async throws(BlueZError) -> DeviceScan
    {
        try monitor.validate()
        _ = try adapterPath(adapter.name, needing: BlueZNames.adapter1)
        if let reason = monitorSupport(on: adapter.path) { throw BlueZError(.notSupported, reason) }
        let root = try exportPath("monitor")
        let path: ObjectPath
        do { path = try root.appending("monitor0") } catch {
            throw BlueZError(.invalidInput, "bad monitor path under \(root)")
        }
        let session = MonitorSession(root: root, monitor: path, adapter: adapter.path, filter: monitor)
        let changes = changes()
        do {
            try await connection.export([], at: root, objectManager: true)
            try await connection.export([Self.monitorInterface(monitor, session: session)], at: path)
        } catch {
            _ = try? connection.unexport(root)
            throw BlueZError(.bus, "cannot export the advertisement monitor: \(error.message)", cause: error)
        }
        let forwarder = Task {
            for await batch in changes { session.send(.changes(batch)) }
        }
        let pump = Task { [weak self] in await self?.pumpMonitor(session) }
        session.onStop = { [weak self] in
            forwarder.cancel()
            pump.cancel()
            await self?.unregisterMonitor(session)
        }
        do {
            _ = try await call(adapter.path, BlueZNames.advertisementMonitorManager1, "RegisterMonitor",
                               [.objectPath(root)])
        } catch {
            await session.stop()
            throw error
        }
        session.registered.withLock { $0 = true }
        let deadline = Task { [clock] in
            try? await clock.sleep(for: activationTimeout)
            session.send(.activationTimedOut)
        }
        let outcome = await session.activation()
        deadline.cancel()
        switch outcome {
        case .activated:
            debug("advertisement monitor \(path) active on \(adapter.name)")
            return DeviceScan(
                events: session.events, finish: { session.finishEvents() }, stopNow: { await session.stop() },
                restart: {})
        case .released:
            await session.stop()
            throw BlueZError(.failed, "bluetoothd released the advertisement monitor on \(adapter.name) instead of "
                + "activating it (the kernel refused its patterns)")
        case .timedOut:
            await session.stop()
            throw BlueZError(.timeout, "bluetoothd did not activate the advertisement monitor on \(adapter.name) "
                + "within \(activationTimeout)")
        }
    }

    /// The exported `org.bluez.AdvertisementMonitor1`: read-only properties bluetoothd reads once, and the
    /// four calls it makes (all without reply), each handed to the session in arrival order.
    static func monitorInterface(_ monitor: AdvertisementMonitor, session: MonitorSession) -> ExportedInterface {
        var interface = ExportedInterface(
            BlueZNames.advertisementMonitor1, callOrder: .serial)
        interface.property("Type", get: { AdvertisementMonitor.orPatterns })
        let patternType = DBusType.structure([.byte, .byte, .array(.byte)])
        let patterns = Value.array(patternType, monitor.patterns.map {
            .structure([.byte($0.start), .byte($0.adType), .bytes($0.content)])
        })
        interface.property("Patterns", type: .array(patternType), get: { patterns })
        if let rssi = monitor.rssi {
            interface.property("RSSIHighThreshold", get: { rssi.high })
            interface.property("RSSIHighTimeout", get: { rssi.highTimeout })
            interface.property("RSSILowThreshold", get: { rssi.low })
            interface.property("RSSILowTimeout", get: { rssi.lowTimeout })
        }
        interface.method("Release", noReply: true) { _ in
            session.send(.released)
            return []
        }
        interface.method("Activate", noReply: true) { _ in
            session.send(.activated)
            return []
        }
        interface.method("DeviceFound", in: "o", inputNames: ["device"], noReply: true) { call in
            session.send(.found(try call.argument(0, as: ObjectPath.self)))
            return []
        }
        interface.method("DeviceLost", in: "o", inputNames: ["device"], noReply: true) { call in
            session.send(.lost(try call.argument(0, as: ObjectPath.self)))
            return []
        }
        return interface
    }

    /// Turns the session's inputs into device events, one at a time: the monitor's calls and the mirror's changes
    /// to Device1 objects under the adapter that match the patterns.
    func pumpMonitor(_ session: MonitorSession) async {
        let initial = devices(under: session.adapter).filter(session.filter.matches)
        var seen = Set(initial.map(\.path))
        for device in initial { session.yield(.appeared(device)) }
        for await input in session.inputs {
            switch input {
            case .activated:
                session.settle(.activated)
            case .activationTimedOut:
                session.settle(.timedOut)
            case .released:
                if !session.settle(.released) {
                    debug("bluetoothd released the advertisement monitor \(session.monitor)")
                    session.finishEvents()
                }
            case .found(let path):
                // With open RSSI thresholds this comes with every matching advertisement (adv_monitor.c), often
                // before the property changes it brings; those arrive as `.changes`. A device already reported
                // is heard again.
                guard session.adapter.isAncestor(of: path), let props = deviceProperties(path),
                      session.filter.matches(props) else { continue }
                session.yield(seen.insert(path).inserted ? .appeared(props) : .heardAgain(props))
            case .lost:
                continue
            case .changes(let batch):
                for change in batch
                where change.interface == BlueZNames.device1.rawValue && session.adapter.isAncestor(of: change.path) {
                    switch change.kind {
                    case .removed(let last):
                        if seen.remove(change.path) != nil, let props = Device1.Properties(path: change.path, last) {
                            session.yield(.gone(props))
                        }
                    case .added, .changed:
                        guard let props = deviceProperties(change.path), session.filter.matches(props) else {
                            continue
                        }
                        if seen.insert(change.path).inserted {
                            session.yield(.appeared(props))
                        } else if case .changed(let names) = change.kind {
                            session.yield(.updated(props, changed: names))
                        }
                    }
                }
            }
        }
    }

    /// UnregisterMonitor (when registered and bluetoothd is still there), then unexport.
    func unregisterMonitor(_ session: MonitorSession) async {
        if session.registered.withLock({ $0 }) {
            _ = try? await call(session.adapter, BlueZNames.advertisementMonitorManager1, "UnregisterMonitor",
                                [.objectPath(session.root)])
        }
        _ = try? connection.unexport(session.monitor)
        _ = try? connection.unexport(session.root)
    }
}

/// One registered advertisement monitor: its paths, what bluetoothd told it, and the stream of device events
/// it produces. Its inputs (bluetoothd's calls, the mirror's changes, the activation deadline) are consumed by
/// one task in arrival order.
final class MonitorSession: Sendable {
    enum Input: Sendable {
        case activated, released, activationTimedOut
        case found(ObjectPath), lost(ObjectPath)
        case changes([ObjectTree.Change])
    }

    enum Activation: Sendable { case activated, released, timedOut }

    private struct State {
        var activation: Activation?
        var waiter: CheckedContinuation<Activation, Never>?
        var stopped = false
    }

    let root: ObjectPath
    let monitor: ObjectPath
    let adapter: ObjectPath
    let filter: AdvertisementMonitor
    let inputs: AsyncStream<Input>
    private let inputSink: AsyncStream<Input>.Continuation
    let events: AsyncStream<DeviceEvent>
    private let eventSink: AsyncStream<DeviceEvent>.Continuation
    /// Whether RegisterMonitor succeeded (so stopping must unregister).
    let registered = Locked(false)
    private let state = Locked(State())
    private let stopAction = Locked<(@Sendable () async -> Void)?>(nil)

    init(root: ObjectPath, monitor: ObjectPath, adapter: ObjectPath, filter: AdvertisementMonitor) {
        self.root = root
        self.monitor = monitor
        self.adapter = adapter
        self.filter = filter
        (inputs, inputSink) = AsyncStream<Input>.makeStream(bufferingPolicy: .unbounded)
        (events, eventSink) = AsyncStream<DeviceEvent>.makeStream(bufferingPolicy: .unbounded)
        eventSink.onTermination = { [weak self] _ in
            Task { await self?.stop() }
        }
    }

    /// What ``stop()`` runs once: cancel the tasks, unregister, unexport.
    var onStop: (@Sendable () async -> Void)? {
        get { stopAction.withLock { $0 } }
        set { stopAction.withLock { $0 = newValue } }
    }

    func send(_ input: Input) { inputSink.yield(input) }
    func yield(_ event: DeviceEvent) { eventSink.yield(event) }
    func finishEvents() { eventSink.finish() }

    /// Waits for bluetoothd's verdict on the registration.
    func activation() async -> Activation {
        await withCheckedContinuation { continuation in
            let settled: Activation? = state.withLock { state in
                if let activation = state.activation { return activation }
                state.waiter = continuation
                return nil
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Records the verdict; false when one was already recorded (a later Release means deactivation).
    @discardableResult
    func settle(_ outcome: Activation) -> Bool {
        let waiter: CheckedContinuation<Activation, Never>?? = state.withLock { state in
            guard state.activation == nil else { return .none }
            state.activation = outcome
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: outcome)
        return true
    }

    /// Ends the events and the registration; the second call does nothing.
    func stop() async {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        eventSink.finish()
        inputSink.finish()
        settle(.released)
        await onStop?()
    }
}
