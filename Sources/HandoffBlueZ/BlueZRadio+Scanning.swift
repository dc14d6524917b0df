import BlueZ
import DBus
import FoundationEssentials
import HandoffShared
import HandoffKit

extension BlueZRadio {
    /// The discovery filter: LE only, every advertisement reported. Without `Transport=le` bluetoothd never turns
    /// a non-discoverable advertisement into a Device1; the beacon itself is re-checked on every match, because
    /// bluetoothd merges all its clients' filters.
    static let discoveryFilter = DiscoveryFilter(transport: "le", duplicateData: true)

    /// Beacons from other devices: an event when a Device1 under this adapter appears carrying a beacon, and each
    /// time its beacon changes. Beacons already known come first. Several streams may run at once; they share
    /// one discovery, which stops when the last stream ends. Discovery restarts by itself after bluetoothd does,
    /// and when the adapter is switched on again; while it is off (also when it is off now) the stream is quiet.
    /// - Throws: `RadioError` `.failed` when discovery cannot start on a powered adapter (adapter gone, bluetoothd
    ///   away or refusing).
    public func scan() async throws -> AsyncStream<ScanEvent> {
        if discovery == nil {
            if await isPowered {
                do {
                    try await startScanningOnce()
                } catch {
                    throw RadioError(error, while: "cannot scan on \(adapterName)")
                }
            } else {
                debug("the adapter is off; discovery starts when it is switched on")
            }
        }
        let (stream, continuation) = AsyncStream<ScanEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        scanners[id] = continuation
        for (path, beacon) in beacons.sorted(by: { $0.key < $1.key }) {
            continuation.yield(ScanEvent(peer: PeerAddress(path.rawValue), beacon: beacon))
        }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeScanner(id) }
        }
        watchAdapter()
        return stream
    }

    /// The beacon a device carries: ManufacturerData under our company id, else ServiceData under our 16-bit
    /// UUID, of exactly the beacon's length.
    static func beacon(in device: Device1.Properties) -> [UInt8]? {
        if let data = device.manufacturerData[WireProtocol.manufacturerID], data.count == WireProtocol.beaconLength {
            return [UInt8](data)
        }
        if let data = device.serviceData[BluetoothUUID(short: WireProtocol.beaconServiceUUID16)],
           data.count == WireProtocol.beaconLength {
            return [UInt8](data)
        }
        return nil
    }

    func removeScanner(_ id: UUID) {
        scanners[id] = nil
        if scanners.isEmpty {
            stopDiscovery()
            if advertised == nil {
                adapterWatch?.cancel()
                adapterWatch = nil
            }
        }
    }

    /// The advertisement monitor: our manufacturer data (company id, then the protocol version, the beacon's
    /// first byte), or the same beacon as 16-bit service data. RSSI thresholds are left open: distance is not
    /// ours to judge, and btvirt reports no RSSI at all.
    static let advertisementMonitor = AdvertisementMonitor(patterns: [
        .manufacturerData(company: WireProtocol.manufacturerID, prefix: [WireProtocol.version]),
        AdvertisementMonitor.Pattern(
            adType: 0x16,
            content: [UInt8(WireProtocol.beaconServiceUUID16 & 0xFF), UInt8(WireProtocol.beaconServiceUUID16 >> 8),
                      WireProtocol.version]),
    ])

    /// Starts scanning unless it runs already, sharing a start in progress: the actor lets a second `scan()` in
    /// while the first awaits bluetoothd, and a second StartDiscovery from the same client is refused
    /// (`InProgress`).
    func startScanningOnce() async throws(BlueZError) {
        if discovery != nil { return }
        if let pending = pendingScanStart { return try await pending.value.get() }
        let start = Task { () async -> Result<Void, BlueZError> in
            do throws(BlueZError) {
                try await self.startDiscovery()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        pendingScanStart = start
        defer { pendingScanStart = nil }
        try await start.value.get()
    }

    /// Starts listening: the advertisement monitor when `options.scanning` asks for it and bluetoothd takes it,
    /// else SetDiscoveryFilter + StartDiscovery (through the BlueZ layer); then a task turning events into beacons.
    /// Falling back is logged once per reason.
    func startDiscovery() async throws(BlueZError) {
        var scan: DeviceScan?
        var state = ScanningState.discovery(fallback: nil)
        if options.scanning == .monitor {
            do {
                scan = try await adapter.monitor(Self.advertisementMonitor)
                state = .monitor(offloaded: await bluez.monitorOffloaded(on: adapter))
            } catch {
                state = .discovery(fallback: error.message)
            }
        }
        let running: DeviceScan
        if let scan {
            running = scan
        } else {
            running = try await adapter.scan(filter: Self.discoveryFilter)
        }
        if state != scanningState {
            (options.notice ?? options.log)?("radio \(adapterName): scanning with \(state)")
        }
        scanningState = state
        discovery = running
        scanGeneration += 1
        let generation = scanGeneration
        discoveryPump = Task { [weak self] in
            for await event in running {
                await self?.received(event)
            }
            await self?.scanEnded(generation)
        }
        if case .discovery = state, let interval = options.discoveryRefresh {
            discoveryRefresher = Task { [adapter, clock = options.clock] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    try? await adapter.restartDiscovery(filter: Self.discoveryFilter)
                }
            }
        }
        debug("scanning started (\(state))")
    }

    /// A scan ended by itself (bluetoothd released the monitor): scan again, unless the radio stopped it.
    func scanEnded(_ generation: UInt64) async {
        guard generation == scanGeneration, discovery != nil, !Task.isCancelled else { return }
        debug("the scan ended by itself; starting again")
        stopDiscovery()
        await restartDiscovery()
    }

    func stopDiscovery() {
        discoveryPump?.cancel()
        discoveryPump = nil
        discoveryRefresher?.cancel()
        discoveryRefresher = nil
        discovery?.stop()
        discovery = nil
        beacons = [:]
    }

    /// Reports `peer`'s next advertisement even if its beacon is unchanged, once (`Radio`). bluetoothd tells of a
    /// device's data only when it changes; what shows that an unchanged device is still there is the monitor's
    /// next `DeviceFound` for it (`.heardAgain`), or under a discovery its next RSSI change (`.updated`). btvirt
    /// reports no RSSI, so there, under a discovery, only a new beacon or the device appearing again is heard.
    /// A peer that is not a device of this adapter is ignored: it is never reported.
    public func reportNextAdvertisement(of peer: PeerAddress) {
        guard let path = try? devicePath(of: peer) else { return }
        awaitedAdvertisements.insert(path)
    }

    /// One device event: a device's beacon when it appears or changes, or when it is heard again unchanged and
    /// ``reportNextAdvertisement(of:)`` asked for it; other changes (RSSI only, a device without a beacon) are not
    /// reported.
    func received(_ event: DeviceEvent) {
        let device = event.device
        switch event {
        case .appeared, .updated, .heardAgain:
            guard let beacon = Self.beacon(in: device) else { return }
            let appeared = if case .appeared = event { true } else { false }
            let news = beacons[device.path] != beacon
            let asked = awaitedAdvertisements.remove(device.path) != nil
            guard appeared || news || asked else { return }   // RSSI only, or a repeat nobody asked for
            beacons[device.path] = beacon
            let scanEvent = ScanEvent(peer: PeerAddress(device.path.rawValue), beacon: beacon,
                                      rssi: device.rssi.map(Int.init))
            for scanner in scanners.values { scanner.yield(scanEvent) }
        case .gone:
            beacons[device.path] = nil
            awaitedAdvertisements.remove(device.path)   // if it comes back, it appears
        }
    }

    /// Follows the adapter while the radio scans or advertises: when bluetoothd goes away the adapter object is
    /// removed and discovery with it, and when the adapter is switched off bluetoothd ends discovery; when the
    /// adapter is back, or on again, discovery starts again, and after a power cycle the advertisement is
    /// registered afresh.
    func watchAdapter() {
        guard adapterWatch == nil else { return }
        let path = adapter.path
        adapterWatch = Task { [weak self, bluez] in
            for await event in await bluez.adapterEvents() {
                guard let self else { return }
                switch event {
                case .removed(let removed) where removed == path:
                    await self.adapterVanished()
                case .added(let added) where added.path == path:
                    await self.restartDiscovery()
                case .powered(let changed, let on) where changed == path:
                    if on {
                        await self.readvertise()
                        await self.restartDiscovery()
                    } else {
                        await self.adapterSwitchedOff()
                    }
                default:
                    continue
                }
            }
        }
    }

    func adapterVanished() {
        guard discovery != nil else { return }
        debug("the adapter went away (bluetoothd stopped?); discovery will restart when it is back")
        stopDiscovery()
    }

    /// bluetoothd ends every discovery session when the adapter is switched off; the radio forgets its own (and
    /// the beacons, whose devices bluetoothd removes) and waits for the adapter to be on again.
    func adapterSwitchedOff() {
        guard discovery != nil else { return }
        debug("the adapter was switched off; discovery will restart when it is on again")
        stopDiscovery()
    }

    /// Starts discovery again once the adapter is powered, retrying for `options.adapterTimeout` (bluetoothd
    /// powers an adapter shortly after adding it). It never switches the adapter on: when it stays off, the next
    /// `.powered(true)` event calls this again.
    func restartDiscovery() async {
        guard discovery == nil, !restartingDiscovery, !scanners.isEmpty else { return }
        restartingDiscovery = true
        defer { restartingDiscovery = false }
        let clock = options.clock
        let deadline = clock.now + options.adapterTimeout
        var lastError: (any Error)?
        while discovery == nil, !scanners.isEmpty, !Task.isCancelled, clock.now < deadline {
            if await isPowered {
                do {
                    try await startScanningOnce()
                    debug("discovery restarted")
                    return
                } catch {
                    lastError = error
                }
            }
            try? await clock.sleep(for: .milliseconds(500))
        }
        if discovery == nil, !scanners.isEmpty {
            debug("discovery not restarted (\(lastError.map { "\($0)" } ?? "the adapter is off")); waiting for the "
                + "adapter to be switched on")
        }
    }
}
