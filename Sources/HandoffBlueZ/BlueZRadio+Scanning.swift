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
            notice("scanning with \(state)")
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
            discoveryRefresher = Task { [weak self, clock = options.clock] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    await self?.renewDiscovery(because: "the refresh option")
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

    /// Restarts the radio's own discovery (StopDiscovery, SetDiscoveryFilter, StartDiscovery), for `reason`. Every
    /// restart goes through here, because one cut short leaves discovery off: bluetoothd forgets the client at
    /// its StopDiscovery, and nothing scans until a StartDiscovery comes. So the three calls run in a task of their
    /// own, which the caller's cancellation does not reach (a connect's nudge is cancelled the moment the
    /// connection is made, which before cut the restart between its StopDiscovery and its StartDiscovery: the
    /// pairing initiator then heard nothing until bluetoothd restarted). A restart that fails all the same
    /// (bluetoothd refusing) is logged, and ``discoveryLost()`` starts discovery again.
    func renewDiscovery(because reason: String) async {
        guard let discovery, case .discovery = scanningState else { return }
        let generation = scanGeneration
        renewals += 1
        let failure = await Task { () async -> BlueZError? in
            do throws(BlueZError) {
                try await discovery.restartDiscovery()
                return nil
            } catch {
                return error
            }
        }.value
        renewals -= 1
        guard let failure, generation == scanGeneration, self.discovery != nil else { return }
        notice("discovery stopped (its restart for \(reason) failed: "
            + "\(failure.message)); starting it again")
        discoveryLost()
    }

    /// bluetoothd says that no discovery runs on the adapter (`Discovering` false). Unless the radio's own restart
    /// is under way (its StopDiscovery turns it false for a moment), the radio's discovery was ended from
    /// outside, and is started again: after `discoveryLostGrace`, if the mirror still says false, since the
    /// signal may be one a finished restart already made stale.
    func discoveringTurnedOff() async {
        guard discovery != nil, case .discovery = scanningState else { return }
        try? await options.clock.sleep(for: options.discoveryLostGrace)
        guard discovery != nil, case .discovery = scanningState, renewals == 0, !restartingDiscovery,
              await isPowered, await bluez.adapters().first(where: { $0.path == adapter.path })?.discovering == false
        else { return }
        notice("discovery was stopped outside handoffd; starting it "
            + "again")
        discoveryLost()
    }

    /// The radio's discovery no longer runs: the radio forgets it and, in a task of its own, makes sure bluetoothd
    /// holds no part of it (StopDiscovery, awaited, so it cannot stop the new one) and starts again
    /// (``restartDiscovery()``, which tries until discovery runs).
    func discoveryLost() {
        let lost = forgetDiscovery()
        Task {
            await lost?.stopAndWait()
            await self.restartDiscovery()
        }
    }

    func stopDiscovery() {
        forgetDiscovery()?.stop()
    }

    /// Drops the radio's discovery, its pump and refresher, and the beacons it reported, and returns it (not yet
    /// stopped at bluetoothd).
    @discardableResult
    func forgetDiscovery() -> DeviceScan? {
        discoveryPump?.cancel()
        discoveryPump = nil
        discoveryRefresher?.cancel()
        discoveryRefresher = nil
        let scan = discovery
        discovery = nil
        beacons = [:]
        return scan
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
                case .discovering(let changed, false) where changed == path:
                    await self.discoveringTurnedOff()
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

    /// Starts discovery again once the adapter is powered. While the adapter is on, it tries until discovery runs,
    /// 500 ms apart at first and at most `options.discoveryRetryLimit` apart later: a radio that scans for the
    /// daemon never gives up and goes deaf. While the adapter is off it waits up to `options.adapterTimeout`
    /// (bluetoothd powers an adapter shortly after adding it), then leaves it to the next `.powered(true)` event,
    /// which calls this again. It never switches the adapter on.
    func restartDiscovery() async {
        guard discovery == nil, !restartingDiscovery, !scanners.isEmpty else { return }
        restartingDiscovery = true
        defer { restartingDiscovery = false }
        let clock = options.clock
        var offSince: HandoffInstant?
        var pause: Duration = .milliseconds(500)
        var failures = 0
        while discovery == nil, !scanners.isEmpty, !Task.isCancelled {
            if await isPowered {
                offSince = nil
                do {
                    try await startScanningOnce()
                    if failures > 0 {
                        notice("discovery runs again")
                    }
                    debug("discovery restarted")
                    return
                } catch {
                    failures += 1
                    if failures == 1 || failures.isMultiple(of: 10) {
                        notice("cannot start discovery "
                            + "(\(error.message)); trying again")
                    }
                    try? await clock.sleep(for: pause)
                    pause = min(pause * 2, options.discoveryRetryLimit)
                }
            } else {
                let since = offSince ?? clock.now
                offSince = since
                guard since.duration(to: clock.now) < options.adapterTimeout else {
                    debug("the adapter is off; discovery restarts when it is switched on")
                    return
                }
                pause = .milliseconds(500)
                try? await clock.sleep(for: pause)
            }
        }
    }
}
