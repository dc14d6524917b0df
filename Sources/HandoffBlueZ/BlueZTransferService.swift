import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import L2CAP
import HandoffShared

/// The source side of the transfer service: a GATT application with the request characteristic (`write`,
/// `write-without-response`) and the data characteristic (`notify`), registered on the radio's adapter, and,
/// unless the radio is set to GATT only, an L2CAP LE CoC listener on the adapter's address whose kernel-chosen
/// PSM is served in the read-only PSM characteristic (little-endian `uint16`).
///
/// GATT centrals are named by the `device` option bluetoothd passes with each WriteValue (the central's Device1
/// path on this adapter), and each central's ATT MTU is the `mtu` option of its last write. Each accepted
/// channel is a central of its own (`l2cap:AA:BB:…#n`): its SDUs are its writes, and frames to it go out as SDUs.
final class BlueZTransferService: TransferService {
    let writes: AsyncStream<IncomingWrite>
    private let continuation: AsyncStream<IncomingWrite>.Continuation
    private let registration: GattRegistration
    private let centrals: CentralTable
    private let bluez: BlueZ
    private let fallbackMTU: Int
    private let closed = Locked(false)
    private let onClose: @Sendable () async -> Void
    private let channels: ChannelTable<L2CAPChannel>
    private let listener: L2CAPListener?
    private let acceptor: Task<Void, Never>?
    private let adapterPath: ObjectPath
    private let log: @Sendable (String) -> Void
    private let traffic: PeerTraffic
    private let trafficKey: Int
    private let clock: any HandoffClock
    private let keptAway: KeptAwayDevices

    // Typed in HandoffKit (WireUUID); BluetoothUUID(_:) stops the program rather than serve under another UUID.
    static let serviceUUID = BluetoothUUID(WireProtocol.transferServiceUUID)
    static let requestUUID = BluetoothUUID(WireProtocol.requestCharacteristicUUID)
    static let dataUUID = BluetoothUUID(WireProtocol.dataCharacteristicUUID)
    /// The read-only PSM characteristic (the UUID Apple uses for the same purpose).
    static let psmUUID = BluetoothUUID(WireProtocol.psmCharacteristicUUID)

    /// The PSM the service publishes, nil when it publishes none.
    let publishedPSM: UInt16?

    private init(writes: AsyncStream<IncomingWrite>, continuation: AsyncStream<IncomingWrite>.Continuation,
                 registration: GattRegistration, centrals: CentralTable, bluez: BlueZ, fallbackMTU: Int,
                 channels: ChannelTable<L2CAPChannel>, listener: L2CAPListener?, acceptor: Task<Void, Never>?,
                 publishedPSM: UInt16?, adapterPath: ObjectPath, traffic: PeerTraffic, trafficKey: Int,
                 keptAway: KeptAwayDevices, clock: any HandoffClock, log: @escaping @Sendable (String) -> Void,
                 onClose: @escaping @Sendable () async -> Void) {
        self.keptAway = keptAway
        self.clock = clock
        self.adapterPath = adapterPath
        self.traffic = traffic
        self.trafficKey = trafficKey
        self.log = log
        self.channels = channels
        self.listener = listener
        self.acceptor = acceptor
        self.publishedPSM = publishedPSM
        self.writes = writes
        self.continuation = continuation
        self.registration = registration
        self.centrals = centrals
        self.bluez = bluez
        self.fallbackMTU = fallbackMTU
        self.onClose = onClose
    }

    /// Listens for channels (unless `options.transport` is `.gatt`), then exports and registers the application
    /// on `adapter`. A kernel without LE CoC is not an error: the service then publishes no PSM, and says so once.
    /// Tells `traffic` which devices' transfers it serves (``carriesTraffic(from:channels:centrals:adapter:now:)``).
    /// Watches the adapter's connections for the devices it keeps away (``KeptAwayDevices``).
    static func open(on adapter: Adapter1, bluez: BlueZ, options: BlueZRadioOptions, traffic: PeerTraffic,
                     log: @escaping @Sendable (String) -> Void, notice: @escaping @Sendable (String) -> Void,
                     onClose: @escaping @Sendable () async -> Void) async throws(BlueZError) -> BlueZTransferService {
        let fallbackMTU = options.fallbackMTU
        let clock = options.clock
        let keptAway = await KeptAwayDevices(bluez: bluez, adapter: adapter, clock: clock, log: notice)
        let (writes, continuation) = AsyncStream<IncomingWrite>.makeStream(bufferingPolicy: .unbounded)
        let centrals = CentralTable()
        let channels = ChannelTable<L2CAPChannel>()
        var listener: L2CAPListener?
        if options.transport != .gatt {
            listener = await listen(on: adapter, bluez: bluez, receiveMTU: min(max(options.channelMTU, 23), 65535),
                                    log: log)
        }
        let published = listener.map { options.publishedPSM ?? $0.psm }
        let request = GattApplication.Characteristic(
            uuid: requestUUID, flags: [.write, .writeWithoutResponse],
            onWrite: { value, request in
                if request.prepareAuthorize { return }        // only asked whether a prepared write would pass
                guard value.count <= WireProtocol.maximumValueLength else {
                    throw BlueZError(.invalidValueLength, "a request value holds at most 512 bytes")
                }
                let central = PeerAddress(request.device?.rawValue ?? "unknown-central")
                let mtu = centrals.note(central, mtu: request.mtu, fallback: fallbackMTU, at: clock.now)
                log("write of \(value.count) B (frame kind \(value.count > 1 ? String(value[value.startIndex + 1], radix: 16) : "-")) from "
                    + "\(central), MTU \(mtu)")
                continuation.yield(IncomingWrite(central: central, value: [UInt8](value), mtu: mtu))
            })
        let data = GattApplication.Characteristic(uuid: dataUUID, flags: [.notify])
        var characteristics = [request, data]
        if let published {
            let value = Data([UInt8(published & 0xFF), UInt8(published >> 8)])
            characteristics.append(GattApplication.Characteristic(
                uuid: psmUUID, flags: [.read], onRead: { request in try value.reading(from: request.offset) }))
        }
        let application = GattApplication(services: [
            GattApplication.Service(uuid: serviceUUID, characteristics: characteristics)
        ])
        let registration: GattRegistration
        do {
            registration = try await bluez.register(application, on: adapter)
        } catch {
            listener?.close()
            throw error
        }
        let acceptor = listener.map { listener in
            Task { [clock = options.clock] in
                await accept(on: listener, into: continuation, channels: channels, clock: clock, log: log)
            }
        }
        let adapterPath = adapter.path
        let trafficKey = traffic.add { device in
            carriesTraffic(from: device, channels: channels, centrals: centrals, adapter: adapterPath, now: clock.now)
        }
        if let listener, let published {
            log("transfer service: channels on PSM 0x\(String(listener.psm, radix: 16)) of \(listener.local)"
                + (published == listener.psm ? "" : ", publishing PSM 0x\(String(published, radix: 16)) instead (testing)"))
        }
        return BlueZTransferService(writes: writes, continuation: continuation, registration: registration,
                                    centrals: centrals, bluez: bluez, fallbackMTU: fallbackMTU, channels: channels,
                                    listener: listener, acceptor: acceptor, publishedPSM: published,
                                    adapterPath: adapterPath, traffic: traffic, trafficKey: trafficKey,
                                    keptAway: keptAway, clock: clock, log: log, onClose: onClose)
    }

    /// Whether `device` (a Device1 path) has a transfer riding on its connection to this service: a channel of its
    /// is open, or it wrote over GATT within ``PeerTraffic/quietAfterWrite``.
    static func carriesTraffic<Channel>(from device: ObjectPath, channels: ChannelTable<Channel>, centrals: CentralTable,
                               adapter: ObjectPath, now: HandoffInstant) -> Bool {
        guard adapter.isAncestor(of: device) else { return false }
        if let address = BluetoothAddress(devicePath: device),
           channels.contains(where: { $0.rawValue.hasPrefix("l2cap:\(address.string)#") }) {
            return true
        }
        guard let wrote = centrals.lastWrite(of: PeerAddress(device.rawValue)) else { return false }
        return wrote.duration(to: now) < PeerTraffic.quietAfterWrite
    }

    /// Most channels served at once (each costs a socket and a pump): a newcomer then takes the place of the
    /// oldest that never wrote, or is closed on arrival (``ChannelTable``).
    static let maximumChannels = 16
    /// How long a channel may stay open without writing a frame.
    static let channelSilenceLimit: Duration = .seconds(10)

    /// A listener on the adapter's address, or nil (logged once) when the kernel or the adapter cannot give one.
    private static func listen(on adapter: Adapter1, bluez: BlueZ, receiveMTU: Int, log: @Sendable (String) -> Void) async
        -> L2CAPListener? {
        guard let address = await bluez.adapters().first(where: { $0.path == adapter.path })?.address?.string else {
            log("transfer service: the adapter's address is unknown; serving GATT only")
            return nil
        }
        let type = await adapter.addressTypeNow() ?? "public"
        guard let local = L2CAPAddress(address, addressType: type) else {
            log("transfer service: cannot use address \(address) (\(type)) for a channel; serving GATT only")
            return nil
        }
        do {
            return try L2CAPListener.listen(on: local, receiveMTU: receiveMTU)
        } catch {
            log("transfer service: no L2CAP channel listener (\(ErrorChain.text(error))); serving GATT only")
            return nil
        }
    }

    /// Accepts channels until the listener closes; each channel's SDUs become writes of its own central.
    private static func accept(on listener: L2CAPListener, into writes: AsyncStream<IncomingWrite>.Continuation,
                               channels: ChannelTable<L2CAPChannel>, clock: any HandoffClock,
                               log: @escaping @Sendable (String) -> Void) async {
        var serial = 0
        var failures = 0
        while !Task.isCancelled {
            let channel: L2CAPChannel
            do {
                channel = try await listener.accept()
                failures = 0
            } catch {
                if error.kind == .closed || error.kind == .cancelled { return }
                // A listener that keeps failing must not spin: wait a little, and stop after ten in a row.
                failures += 1
                log("transfer service: accept failed (\(failures) in a row): \(ErrorChain.text(error))")
                guard failures < 10 else {
                    log("transfer service: no more channels are accepted; centrals fall back to GATT")
                    return
                }
                try? await clock.sleep(for: .milliseconds(100))
                continue
            }
            serial += 1
            let central = PeerAddress("l2cap:\(channel.peer.address)#\(serial)")
            switch channels.add(channel, as: central, limit: maximumChannels) {
            case .full:
                log("transfer service: refusing a channel from \(channel.peer): \(maximumChannels) are open")
                channel.close()
                continue
            case .added(let evicted?):
                log("transfer service: \(maximumChannels) channels are open; closing the oldest that never wrote")
                evicted.close()
            case .added(nil):
                break
            }
            log("transfer service: channel from \(channel.peer) as \(central), SDU \(channel.sendMTU)/"
                + "\(channel.receiveMTU) B")
            let frameLimit = min(channel.sendMTU, 65535)
            let mtu = min(frameLimit, WireProtocol.maximumValueLength) + 3
            Task {
                // A channel that writes nothing for `channelSilenceLimit` is closed: every client of ours writes
                // its first frame as soon as its channel opens.
                try? await clock.sleep(for: channelSilenceLimit)
                if channels.isSilent(central) {
                    log("transfer service: closing \(central): silent for \(channelSilenceLimit)")
                    channels.remove(central)?.close()
                }
            }
            Task {
                do throws(L2CAPError) {
                    while let sdu = try await channel.receive() {
                        channels.noteWrite(from: central)
                        writes.yield(IncomingWrite(central: central, value: sdu, mtu: mtu,
                                                   maximumFrameLength: frameLimit, transport: .l2cap))
                    }
                } catch {
                    if error.kind != .closed { log("transfer service: channel \(central) ended: \(ErrorChain.text(error))") }
                }
                channels.remove(central)?.close()
            }
        }
    }

    /// Notifies `value` on the data characteristic. bluetoothd sends it to every subscribed central (frames carry
    /// ids, so that is correct); `central` decides the size limit and must still be connected.
    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        guard !closed.withLock({ $0 }) else { throw RadioError(.disconnected, "the transfer service is closed") }
        if let channel = channels.channel(of: central) {
            do {
                try await channel.send(value)
            } catch {
                throw RadioError(error, while: "cannot send to \(central)")
            }
            // At the link's pace, as a link of ours writes: a source's stream must not keep another transfer on
            // the same connection waiting behind it.
            await channel.paced(clock: clock) { channels.channel(of: central) != nil && !closed.withLock { $0 } }
            return
        }
        if central.rawValue.hasPrefix("l2cap:") {
            throw RadioError(.disconnected, "the channel \(central) is closed")
        }
        let mtu = centrals.mtu(of: central) ?? fallbackMTU
        guard value.count <= WireProtocol.valueLength(forMTU: mtu) else {
            throw RadioError(.valueTooLong, "a notification of \(value.count) bytes exceeds \(central)'s MTU \(mtu) - 3")
        }
        guard await isConnected(central) else {
            throw RadioError(.disconnected, "\(central) is no longer connected")
        }
        let sent: Bool
        do {
            sent = try registration.notify(Self.dataUUID, value: Data(value), service: Self.serviceUUID)
        } catch {
            throw RadioError(error, while: "cannot notify \(central)")
        }
        guard sent else { throw RadioError(.disconnected, "no central is subscribed to the data characteristic") }
    }

    /// Whether the central's Device1 on this adapter is connected (unknown names count as connected). The mirror
    /// answers when it says yes; otherwise bluetoothd is asked, because a WriteValue can arrive before the
    /// mirror has applied the PropertiesChanged that announced the connection.
    private func isConnected(_ central: PeerAddress) async -> Bool {
        guard let path = ObjectPath(rawValue: central.rawValue) else { return true }
        if (try? await bluez.device(at: path).properties())?.connected == true { return true }
        return await bluez.device(at: path).connectedNow() == true
    }

    /// Closes a channel central's channel, then disconnects the central's device on this adapter
    /// (Device1.Disconnect), which ends its GATT writes and every channel of it, and with a `cooldown` disconnects it
    /// again each time it connects until the cooldown ends (``KeptAwayDevices``).
    func drop(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async {
        let device: ObjectPath?
        if let channel = channels.remove(central) {
            channel.close()
            device = BluetoothAddress(channel.peer.address).flatMap {
                ObjectPath(rawValue: "\(adapterPath.rawValue)/\($0.pathElement)")
            }
        } else if central.rawValue.hasPrefix("/") {
            device = ObjectPath(rawValue: central.rawValue).flatMap { adapterPath.isAncestor(of: $0) ? $0 : nil }
        } else {
            device = nil
        }
        guard let device else { return }
        log("transfer service: dropping \(central) (it wrote what no client of ours writes)")
        if cooldown > .zero {
            await keptAway.keepAway(device, for: cooldown)
            return
        }
        do throws(BlueZError) {
            try await bluez.device(at: device).disconnect(timeout: .seconds(5))
        } catch {
            log("transfer service: could not disconnect \(device): \(error)")
        }
    }

    /// Unregisters the application and ends `writes`. Idempotent.
    func close() async {
        let wasClosed = closed.withLock { state -> Bool in
            defer { state = true }
            return state
        }
        guard !wasClosed else { return }
        traffic.remove(trafficKey)
        listener?.close()
        acceptor?.cancel()
        for channel in channels.removeAll() { channel.close() }
        continuation.finish()
        keptAway.close()
        await registration.cancel()
        await onClose()
    }
}

/// The ATT MTU of each central, as bluetoothd last reported it in a WriteValue's options, and when it last wrote.
final class CentralTable: Sendable {
    private let mtus = Locked<[PeerAddress: Int]>([:])
    private let writes = Locked<[PeerAddress: HandoffInstant]>([:])

    /// Records a write of `central` at `now`, and `mtu` when given; returns the MTU to use for it.
    func note(_ central: PeerAddress, mtu: Int?, fallback: Int, at now: HandoffInstant) -> Int {
        writes.withLock { $0[central] = now }
        return mtus.withLock { table in
            if let mtu { table[central] = mtu }
            return table[central] ?? fallback
        }
    }

    /// When `central` last wrote, if it did.
    func lastWrite(of central: PeerAddress) -> HandoffInstant? {
        writes.withLock { $0[central] }
    }

    /// The MTU last recorded for `central`.
    func mtu(of central: PeerAddress) -> Int? {
        mtus.withLock { $0[central] }
    }
}

/// The open channels of the transfer service, by central name.
/// The open channels of the transfer service, by central name. A channel whose central has written nothing yet is
/// *silent*: when every place is taken, the oldest silent channel makes room for a newcomer, so a stranger that
/// opens channels and holds them cannot keep the user's own devices off the fast path (they write their REQUEST
/// the moment their channel opens). A full table of channels that all wrote refuses the newcomer.
final class ChannelTable<Channel: Sendable>: Sendable {
    private struct Entry {
        let channel: Channel
        let serial: Int
        var wrote = false
    }

    private let open = Locked<[PeerAddress: Entry]>([:])
    private let serials = Locked(0)

    /// What `add` did.
    enum Admission {
        /// Added; `evicted` is the silent channel that made room (close it), if one had to.
        case added(evicted: Channel?)
        /// Refused: `limit` channels are open, and each has written.
        case full
    }

    /// Adds `channel` as `central`; when `limit` are open, the oldest silent one makes room.
    func add(_ channel: Channel, as central: PeerAddress, limit: Int) -> Admission {
        let serial = serials.withLock { value -> Int in
            value += 1
            return value
        }
        return open.withLock { table in
            var evicted: Channel?
            if table.count >= limit {
                guard let oldest = table.filter({ !$0.value.wrote }).min(by: { $0.value.serial < $1.value.serial })
                else { return .full }
                evicted = table.removeValue(forKey: oldest.key)?.channel
            }
            table[central] = Entry(channel: channel, serial: serial)
            return .added(evicted: evicted)
        }
    }

    /// Notes that `central` wrote: its channel is no longer silent.
    func noteWrite(from central: PeerAddress) {
        open.withLock { $0[central]?.wrote = true }
    }

    /// Whether `central`'s channel is open and has written nothing.
    func isSilent(_ central: PeerAddress) -> Bool {
        open.withLock { $0[central].map { !$0.wrote } ?? false }
    }

    func channel(of central: PeerAddress) -> Channel? {
        open.withLock { $0[central]?.channel }
    }

    /// Whether a channel is open whose central satisfies `predicate`.
    func contains(where predicate: (PeerAddress) -> Bool) -> Bool {
        open.withLock { $0.keys.contains(where: predicate) }
    }

    func remove(_ central: PeerAddress) -> Channel? {
        open.withLock { $0.removeValue(forKey: central)?.channel }
    }

    func removeAll() -> [Channel] {
        open.withLock { table in
            defer { table = [:] }
            return table.values.map(\.channel)
        }
    }
}
