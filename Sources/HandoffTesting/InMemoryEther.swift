import Foundation
import HandoffKit
import HandoffShared

/// The shared medium of simulated devices: adverts reach every scanner, connections reach open services.
/// Create radios with `makeRadio(address:)`; inject faults with `setConditions(_:)`, `disconnectAll()`,
/// `setReachable(_:_:)` and `setNotificationTamper(_:)`; watch writes with `setWriteTap(_:)`; move a device to a new
/// address with `rotateAddress(of:to:)`, as LE privacy does. Deterministic for a given seed.
public actor InMemoryEther {
    /// Current fault and limit settings.
    public private(set) var conditions = LinkConditions()
    /// Counters.
    public private(set) var statistics = InMemoryStatistics()

    private var generator: SeededGenerator
    private var adverts: [PeerAddress: [UInt8]] = [:]
    private var scanners: [UUID: (owner: PeerAddress, continuation: AsyncStream<ScanEvent>.Continuation)] = [:]
    private var services: [PeerAddress: AsyncStream<IncomingWrite>.Continuation] = [:]
    private var unreachable: Set<PeerAddress> = []
    /// The address each rotated radio shows now, by the radio's own (`InMemoryRadio.address`).
    private var shown: [PeerAddress: PeerAddress] = [:]
    /// Every address a radio asked to connect to, in order, whether or not it was reached.
    public private(set) var dialed: [PeerAddress] = []
    private var links: [UUID: Link] = [:]
    /// Every link made and not yet disconnected by its owner, dropped or not: (central, peripheral).
    private var owned: [UUID: (central: PeerAddress, peripheral: PeerAddress)] = [:]
    private var tamper: (@Sendable ([UInt8]) -> [UInt8]?)?
    private var writeTap: (@Sendable ([UInt8]) -> Void)?
    private var advertTap: [UUID: AsyncStream<ScanEvent>.Continuation] = [:]
    /// Until when each dropped central's connections to the peripheral that dropped it are refused.
    private var keptAway: [Pair: HandoffInstant] = [:]

    struct Pair: Hashable {
        let central: PeerAddress
        let peripheral: PeerAddress
    }

    struct Link {
        let central: PeerAddress
        let peripheral: PeerAddress
        let mtu: Int
        let frameLimit: Int
        let transport: LinkTransport
        let continuation: AsyncStream<[UInt8]>.Continuation
        /// Every notification to it is lost (`LinkConditions.deafLinks`).
        var deaf = false
        /// The central as its writes name it: a channel is named apart from its GATT self, as in HandoffBlueZ.
        var writer: PeerAddress {
            transport.kind == .l2cap ? PeerAddress("\(central.rawValue)#l2cap") : central
        }
    }

    /// Where the radios' delays and hangs wait; `HandoffFixtures` gives it to the engines too.
    public nonisolated let clock: any HandoffClock

    /// A medium whose random faults follow `seed` and whose delays and hangs wait on `clock`.
    public init(seed: UInt64 = 0x4841_4E44, clock: any HandoffClock = RealClock()) {
        generator = SeededGenerator(seed: seed)
        self.clock = clock
    }

    /// A new simulated device at `address`.
    public nonisolated func makeRadio(address: String) -> InMemoryRadio {
        InMemoryRadio(ether: self, address: PeerAddress(address))
    }

    /// Replaces the fault and limit settings.
    public func setConditions(_ conditions: LinkConditions) {
        self.conditions = conditions
    }

    /// Makes `address` reachable or not (an unreachable device refuses connections and its links drop).
    public func setReachable(_ address: PeerAddress, _ reachable: Bool) {
        if reachable {
            unreachable.remove(address)
        } else {
            unreachable.insert(address)
            dropLinks { $0.peripheral == address || $0.central == address }
        }
    }

    /// Moves the device whose radio is `radio` (its `InMemoryRadio.address`) to `address`, as the kernel does with
    /// a new resolvable private address under LE privacy. From now on the device is seen and reached at `address`
    /// only: its current advertisement (the same bytes, as a source re-sealing the same sequence would send) is
    /// heard from there at once, a connection to its radio's address is refused, and its links drop. Its own
    /// writes and notifications go on as before. Rotate again to move it on; `address` must be no other device's.
    public func rotateAddress(of radio: PeerAddress, to address: PeerAddress) {
        shown[radio] = address
        dropLinks { $0.peripheral == radio || $0.central == radio }
        if let beacon = adverts[radio] { broadcast(ScanEvent(peer: address, beacon: beacon, rssi: -50), from: radio) }
    }

    /// Drops every link now (each central's notification stream ends).
    public func disconnectAll() {
        dropLinks { _ in true }
    }

    /// Rewrites (or, returning nil, drops) every later notification; pass nil to stop tampering.
    public func setNotificationTamper(_ tamper: (@Sendable ([UInt8]) -> [UInt8]?)?) {
        self.tamper = tamper
    }

    /// Hands every later write a central makes (as delivered) to `tap`, as a sniffer on the link would see it;
    /// pass nil to stop.
    public func setWriteTap(_ tap: (@Sendable ([UInt8]) -> Void)?) {
        writeTap = tap
    }

    /// Delivers `beacon` to every scanner as if `address` advertised it (a fixture, an attacker, a replay).
    public func inject(beacon: [UInt8], from address: PeerAddress, rssi: Int? = -60) {
        broadcast(ScanEvent(peer: address, beacon: beacon, rssi: rssi), from: address)
    }

    /// Every advertisement broadcast from now on, as a sniffer would see it.
    public func sniff() -> AsyncStream<ScanEvent> {
        let (stream, continuation) = AsyncStream<ScanEvent>.makeStream()
        advertTap[UUID()] = continuation
        return stream
    }

    /// The beacon `address` advertises right now, if any.
    public func currentAdvertisement(of address: PeerAddress) -> [UInt8]? {
        adverts[address]
    }

    // MARK: - Radio operations

    func advertise(_ beacon: [UInt8], from address: PeerAddress) throws {
        guard beacon.count == WireProtocol.beaconLength else {
            throw RadioError(.failed, "a beacon must be \(WireProtocol.beaconLength) bytes, got \(beacon.count)")
        }
        adverts[address] = beacon
        statistics.advertisements += 1
        broadcast(ScanEvent(peer: shown[address] ?? address, beacon: beacon, rssi: -50), from: address)
    }

    func stopAdvertising(from address: PeerAddress) {
        adverts[address] = nil
    }

    func scan(for owner: PeerAddress) -> AsyncStream<ScanEvent> {
        let (stream, continuation) = AsyncStream<ScanEvent>.makeStream()
        let id = UUID()
        scanners[id] = (owner, continuation)
        for (address, beacon) in adverts where address != owner {
            continuation.yield(ScanEvent(peer: shown[address] ?? address, beacon: beacon, rssi: -50))
        }
        continuation.onTermination = { [weak self] _ in Task { await self?.removeScanner(id) } }
        return stream
    }

    private func removeScanner(_ id: UUID) {
        scanners[id] = nil
    }

    func openService(at address: PeerAddress) throws -> AsyncStream<IncomingWrite> {
        guard services[address] == nil else {
            throw RadioError(.failed, "\(address) already serves the transfer service")
        }
        let (stream, continuation) = AsyncStream<IncomingWrite>.makeStream()
        services[address] = continuation
        return stream
    }

    func closeService(at address: PeerAddress) {
        services.removeValue(forKey: address)?.finish()
        dropLinks { $0.peripheral == address }
    }

    func connect(from central: PeerAddress, to address: PeerAddress) throws -> InMemoryLink {
        dialed.append(address)
        // The radio behind `address`: the one that shows it now, or the one whose own address it is, unless that
        // radio rotated away from it.
        let peripheral = shown.first { $0.value == address }?.key ?? (shown[address] == nil ? address : nil)
        guard let peripheral, !unreachable.contains(peripheral), !unreachable.contains(central),
              services[peripheral] != nil else {
            throw RadioError(.unreachable, "\(address) is out of range or serves nothing")
        }
        if let until = keptAway[Pair(central: central, peripheral: peripheral)] {
            guard clock.now >= until else {
                statistics.connectsKeptAway += 1
                throw RadioError(.unreachable, "\(peripheral) refuses \(central) until its cooldown ends")
            }
            keptAway[Pair(central: central, peripheral: peripheral)] = nil
        }
        if conditions.linksHeldUntilDisconnected,
           owned.values.contains(where: { $0.central == central && $0.peripheral == peripheral }) {
            statistics.connectsBehindAnOpenLink += 1
            throw RadioError(.failed, "\(central)'s earlier link to \(peripheral) was never disconnected")
        }
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let id = UUID()
        let transport: LinkTransport
        var frameLimit = WireProtocol.valueLength(forMTU: conditions.mtu)
        var mtu = conditions.mtu
        switch conditions.channel {
        case nil:
            transport = .gatt
        case .open(let sdu):
            transport = LinkTransport(.l2cap, detail: "in-memory channel, SDU \(sdu) B")
            frameLimit = min(max(sdu, 23), 65535)
            mtu = min(frameLimit, WireProtocol.maximumValueLength) + 3
            statistics.channelConnections += 1
        case .notPublished:
            transport = LinkTransport(fallback: .notPublished, detail: "\(peripheral) publishes no PSM")
        case .refused:
            transport = LinkTransport(fallback: .refused, detail: "\(peripheral) refused the channel")
        case .unsupported:
            transport = LinkTransport(fallback: .unsupported, detail: "no LE connection-oriented channels here")
        }
        links[id] = Link(central: central, peripheral: peripheral, mtu: mtu, frameLimit: frameLimit,
                         transport: transport, continuation: continuation, deaf: conditions.deafLinks > 0)
        conditions.deafLinks = max(conditions.deafLinks - 1, 0)
        owned[id] = (central, peripheral)
        statistics.connections += 1
        return InMemoryLink(ether: self, id: id, peer: address, mtu: mtu, maximumFrameLength: frameLimit,
                            transport: transport, notifications: stream)
    }

    func write(_ value: [UInt8], on id: UUID) throws {
        guard let link = links[id] else { throw RadioError(.disconnected, "the link is down") }
        let limit = link.transport.kind == .l2cap ? link.frameLimit : WireProtocol.maximumValueLength
        guard value.count <= limit else {
            throw RadioError(.valueTooLong, "a write of \(value.count) bytes exceeds \(limit)")
        }
        guard let service = services[link.peripheral] else { throw RadioError(.disconnected, "the service is gone") }
        if let remaining = conditions.loseWritesAfter {
            guard remaining > 0 else { return }
            conditions.loseWritesAfter = remaining - 1
        }
        statistics.writesDelivered += 1
        writeTap?(value)
        statistics.largestFrame = max(statistics.largestFrame, value.count)
        service.yield(IncomingWrite(central: link.writer, value: value, mtu: link.mtu,
                                    maximumFrameLength: link.frameLimit, transport: link.transport.kind))
    }

    func notify(_ value: [UInt8], from peripheral: PeerAddress, to central: PeerAddress) throws {
        let targets = links.filter { $0.value.peripheral == peripheral && $0.value.writer == central }
        guard let target = targets.values.first else {
            throw RadioError(.disconnected, "\(central) is not connected")
        }
        guard value.count <= target.frameLimit else {
            throw RadioError(.valueTooLong, "a frame of \(value.count) bytes exceeds \(central)'s limit of "
                                 + "\(target.frameLimit) (MTU \(target.mtu))")
        }
        let onChannel = target.transport.kind == .l2cap
        if let remaining = conditions.disconnectAfterNotifications {
            if remaining <= 0 {
                conditions.disconnectAfterNotifications = nil
                statistics.injectedDisconnections += 1
                if conditions.vanishOnDisconnect { unreachable.insert(peripheral) }
                dropLinks { $0.peripheral == peripheral }
                throw RadioError(.disconnected, "the link dropped (injected)")
            }
            conditions.disconnectAfterNotifications = remaining - 1
        }
        // A channel is reliable, except for the silent SDU loss of old kernels; GATT notifications are not.
        let lossRate = onChannel ? conditions.channelLossRate : conditions.notificationLossRate
        if conditions.dropAllNotifications || target.deaf
            || (lossRate > 0 && Double.random(in: 0..<1, using: &generator) < lossRate) {
            statistics.notificationsLost += 1
            return
        }
        var delivered = value
        if let tamper {
            guard let changed = tamper(value) else {
                statistics.notificationsLost += 1
                return
            }
            delivered = changed
        }
        // BlueZ notifies a characteristic's value to every subscriber; a channel carries its SDUs to one device.
        let receivers = conditions.broadcastNotifications && !onChannel
            ? links.values.filter { $0.peripheral == peripheral && $0.transport.kind != .l2cap && !$0.deaf }
            : Array(targets.values)
        for link in receivers {
            link.continuation.yield(delivered)
        }
        statistics.notificationsDelivered += 1
        statistics.notifiedBytes += delivered.count
        statistics.largestFrame = max(statistics.largestFrame, delivered.count)
    }

    func close(_ id: UUID) {
        links.removeValue(forKey: id)?.continuation.finish()
        owned[id] = nil
    }

    /// Drops the links of the device behind `writer` (as its writes name it) to `peripheral`, its channels with
    /// them, as a peripheral's Disconnect of that central does, and refuses that device's connections to
    /// `peripheral` for `cooldown`, as a blocked device's are (`connect(from:to:)`).
    func dropCentral(_ writer: PeerAddress, at peripheral: PeerAddress, keepingAwayFor cooldown: Duration) {
        guard let central = links.values.first(where: { $0.peripheral == peripheral && $0.writer == writer })?.central
        else { return }
        statistics.droppedCentrals += 1
        if cooldown > .zero { keptAway[Pair(central: central, peripheral: peripheral)] = clock.now + cooldown }
        dropLinks { $0.peripheral == peripheral && $0.central == central }
    }

    /// Links made and not yet disconnected by their owners, whether or not they dropped.
    public var undisconnectedLinks: Int { owned.count }

    private func dropLinks(where predicate: (Link) -> Bool) {
        for (id, link) in links where predicate(link) {
            link.continuation.finish()
            links[id] = nil
        }
    }

    /// Delivers `event`, sent by the radio whose own address is `radio`, to every other radio's scanner.
    private func broadcast(_ event: ScanEvent, from radio: PeerAddress) {
        for scanner in scanners.values where scanner.owner != radio {
            scanner.continuation.yield(event)
        }
        for tap in advertTap.values { tap.yield(event) }
    }
}
