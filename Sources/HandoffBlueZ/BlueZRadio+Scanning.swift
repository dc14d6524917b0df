import BlueZ
import DBus
import Foundation
import HandoffKit

extension BlueZRadio {
    /// The discovery filter: LE only, every advertisement reported. Without `Transport=le` bluetoothd never turns
    /// a non-discoverable advertisement into a Device1; the beacon itself is re-checked on every match, because
    /// bluetoothd merges all its clients' filters.
    static let discoveryFilter = DiscoveryFilter(transport: "le", duplicateData: true)

    /// Beacons from other devices: an event when a Device1 under this adapter appears carrying a beacon, and each
    /// time its beacon changes. Beacons already known come first. Several streams may run at once; they share
    /// one discovery, which stops when the last stream ends. Discovery restarts by itself after bluetoothd does.
    /// - Throws: `RadioError` `.failed` when discovery cannot start (adapter off or gone, bluetoothd away).
    public func scan() async throws -> AsyncStream<ScanEvent> {
        if discovery == nil {
            do {
                try await startDiscovery()
            } catch {
                throw RadioError(error, while: "cannot scan on \(adapterName)")
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
            adapterWatch?.cancel()
            adapterWatch = nil
        }
    }

    /// SetDiscoveryFilter + StartDiscovery (through the BlueZ layer), and a task turning its events into beacons.
    func startDiscovery() async throws(BlueZError) {
        let scan = try await adapter.scan(filter: Self.discoveryFilter)
        discovery = scan
        discoveryPump = Task { [weak self] in
            for await event in scan {
                await self?.received(event)
            }
        }
        if let interval = options.discoveryRefresh {
            let path = adapter.path
            discoveryRefresher = Task { [bluez] in
                while !Task.isCancelled {
                    do { try await Task.sleep(for: interval) } catch { return }
                    try? await bluez.refreshDiscovery(on: path, filter: Self.discoveryFilter)
                }
            }
        }
        debug("discovery started")
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

    func received(_ event: DeviceEvent) {
        switch event {
        case .appeared(let device), .updated(let device, _):
            guard let beacon = Self.beacon(in: device) else { return }
            if case .updated = event, beacons[device.path] == beacon { return }   // RSSI or other changes only
            beacons[device.path] = beacon
            let scanEvent = ScanEvent(peer: PeerAddress(device.path.rawValue), beacon: beacon,
                                      rssi: device.rssi.map(Int.init))
            for scanner in scanners.values { scanner.yield(scanEvent) }
        case .gone(let device):
            beacons[device.path] = nil
        }
    }

    /// Follows the adapter: when bluetoothd goes away the adapter object is removed and discovery with it; when
    /// the adapter is back, discovery starts again (retrying until the adapter is powered).
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

    func restartDiscovery() async {
        guard discovery == nil, !restartingDiscovery, !scanners.isEmpty else { return }
        restartingDiscovery = true
        defer { restartingDiscovery = false }
        let deadline = ContinuousClock.now + options.adapterTimeout
        while discovery == nil, !scanners.isEmpty, !Task.isCancelled {
            do {
                try await adapter.setPowered(true)
                try await startDiscovery()
                debug("discovery restarted")
                return
            } catch {
                guard ContinuousClock.now < deadline else {
                    debug("cannot restart discovery: \(error); giving up until the adapter comes back again")
                    return
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
