import DBus
import HandoffShared

extension Adapter1 {
    /// Sets the discovery filter, starts discovery and delivers matching devices as events.
    ///
    /// Devices already known (and matching) come first as `.appeared`. Every device is re-checked with
    /// ``DiscoveryFilter/matches(_:)``, since bluetoothd merges all clients' filters.
    /// - Throws: ``BlueZError`` from SetDiscoveryFilter or StartDiscovery (`.notReady` when powered off).
    public func scan(filter: DiscoveryFilter = DiscoveryFilter()) async throws(BlueZError) -> DeviceScan {
        try await bluez.scan(on: self, filter: filter)
    }

    /// Removes a device from bluetoothd (forgetting its bond), so the next advertisement makes a fresh object.
    public func removeDevice(_ device: Device1) async throws(BlueZError) {
        _ = try await bluez.call(path, BlueZNames.adapter1, "RemoveDevice", [.objectPath(device.path)])
    }

    /// The devices under this adapter in the mirror.
    public func devices() async -> [Device1.Properties] {
        await bluez.devices(under: path)
    }

    /// Each device of this adapter that bluetoothd reports connected from now on (`Device1.Connected` turning
    /// true, or a device object that appears connected), as it happens, until the caller stops iterating. Keeps the
    /// newest 64 when the caller falls behind.
    public func connections() async -> AsyncStream<ObjectPath> {
        await bluez.connections(under: path)
    }
}

extension BlueZ {
    func connections(under adapter: ObjectPath) -> AsyncStream<ObjectPath> {
        let stream = changes()
        let (connections, continuation) = AsyncStream<ObjectPath>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let pump = Task { [weak self] in
            for await batch in stream {
                for change in batch
                where change.interface == BlueZNames.device1.rawValue && adapter.isAncestor(of: change.path) {
                    switch change.kind {
                    case .added:
                        break
                    case .changed(let names) where names.contains("Connected"):
                        break
                    default:
                        continue
                    }
                    guard let self else { break }
                    if await self.deviceProperties(change.path)?.connected == true { continuation.yield(change.path) }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in pump.cancel() }
        return connections
    }

    func devices(under adapter: ObjectPath) -> [Device1.Properties] {
        tree.paths(with: BlueZNames.device1).filter { adapter.isAncestor(of: $0) }.compactMap { path in
            Device1.Properties(path: path, tree.properties(path, BlueZNames.device1) ?? [:])
        }
    }

    /// SetDiscoveryFilter then StartDiscovery. A refusal other than "powered off" or "gone" is tried again, up
    /// to five times 300 ms apart: when the kernel is still busy (stopping the previous discovery, say) bluetoothd
    /// answers `Failed: Busy` and drops the client, and discovery would otherwise stay off until the next attempt.
    /// `InProgress` says bluetoothd holds a discovery for this connection that the layer does not know of (a start
    /// whose reply was lost, say): it is stopped before the next attempt, since no scan would hear it.
    /// Only the discovery steps (BlueZ+DiscoverySessions.swift) call this.
    func startDiscovery(on adapter: ObjectPath, filter: DiscoveryFilter) async throws(BlueZError) {
        var options: [String: Variant] = [
            "Transport": Variant(filter.transport), "DuplicateData": Variant(filter.duplicateData),
        ]
        if !filter.uuids.isEmpty { options["UUIDs"] = Variant(filter.uuids.map(\.string)) }
        if let rssi = filter.rssi { options["RSSI"] = Variant(rssi) }
        if let pattern = filter.pattern { options["Pattern"] = Variant(pattern) }
        var attempt = 1
        while true {
            do {
                _ = try await call(adapter, BlueZNames.adapter1, "SetDiscoveryFilter", [options.dbusValue])
                _ = try await call(adapter, BlueZNames.adapter1, "StartDiscovery")
                return
            } catch {
                let final = error.code == .notReady || error.code == .unavailable(.noAdapter)
                    || error.code == .unavailable(.noBlueZ) || error.code == .unavailable(.poweredOff)
                guard !final, attempt < 5 else { throw error }
                attempt += 1
                if error.code == .inProgress {
                    debug("StartDiscovery on \(adapter.rawValue): bluetoothd holds a discovery no scan knows of; stopping it")
                    _ = try? await call(adapter, BlueZNames.adapter1, "StopDiscovery")
                }
                try? await clock.sleep(for: .milliseconds(300))
            }
        }
    }

    func scan(on adapter: Adapter1, filter: DiscoveryFilter) async throws(BlueZError) -> DeviceScan {
        let stream = changes()
        let user = try await joinDiscovery(on: adapter.path, filter: filter)
        let initial = devices(under: adapter.path).filter(filter.matches)
        let adapterPath = adapter.path
        let (events, continuation) = AsyncStream<DeviceEvent>.makeStream(bufferingPolicy: .unbounded)
        let pump = Task { [weak self] in
            var seen = Set(initial.map(\.path))
            for device in initial { continuation.yield(.appeared(device)) }
            for await batch in stream {
                for change in batch
                where change.interface == BlueZNames.device1.rawValue && adapterPath.isAncestor(of: change.path) {
                    guard let self else { break }
                    switch change.kind {
                    case .removed(let last):
                        if seen.remove(change.path) != nil, let props = Device1.Properties(path: change.path, last) {
                            continuation.yield(.gone(props))
                        }
                    case .added, .changed:
                        guard let props = await self.deviceProperties(change.path), filter.matches(props) else {
                            continue
                        }
                        if seen.insert(change.path).inserted {
                            continuation.yield(.appeared(props))
                        } else if case .changed(let names) = change.kind {
                            continuation.yield(.updated(props, changed: names))
                        }
                    }
                }
            }
            continuation.finish()
        }
        let stopDiscovery: @Sendable () async -> Void = { [weak self] in
            await self?.leaveDiscovery(on: adapterPath, user: user)
        }
        continuation.onTermination = { _ in
            pump.cancel()
            Task { await stopDiscovery() }
        }
        return DeviceScan(
            events: events, finish: { continuation.finish() },
            stopNow: {
                continuation.finish()
                await stopDiscovery()
            },
            restart: { [weak self] () async throws(BlueZError) -> Void in
                try await self?.renewDiscovery(on: adapterPath, user: user)
            })
    }

    func deviceProperties(_ path: ObjectPath) -> Device1.Properties? {
        tree.properties(path, BlueZNames.device1).flatMap { Device1.Properties(path: path, $0) }
    }

    /// A handle on a device object.
    public func device(at path: ObjectPath) -> Device1 { Device1(path: path, bluez: self) }
}
