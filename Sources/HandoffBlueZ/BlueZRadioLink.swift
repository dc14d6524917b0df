import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import HandoffShared

/// A GATT client connection to a peer's transfer service: writes go to the request characteristic with response,
/// notifications of the data characteristic arrive in `notifications`, which finishes when the device disconnects.
final class BlueZRadioLink: RadioLink {
    let peer: PeerAddress
    let mtu: Int
    let notifications: AsyncStream<[UInt8]>
    let transport: LinkTransport
    let setup: [LinkSetupPhase]
    private let device: Device1
    private let request: GattCharacteristic1
    private let lease: DeviceLease
    /// Where a write refused as if the cached attribute table were stale is noted, for the next connect.
    private let staleCaches: StaleCaches
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let closed = Locked(false)
    private let log: @Sendable (String) -> Void

    private init(peer: PeerAddress, mtu: Int, device: Device1, request: GattCharacteristic1, lease: DeviceLease,
                 staleCaches: StaleCaches, transport: LinkTransport, setup: [LinkSetupPhase],
                 log: @escaping @Sendable (String) -> Void) {
        self.log = log
        self.staleCaches = staleCaches
        self.peer = peer
        self.mtu = mtu
        self.device = device
        self.request = request
        self.lease = lease
        self.transport = transport
        self.setup = setup
        (notifications, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
    }

    /// The device's own `Connected` changes, watched from before the connection is made: the BlueZ layer's mirror
    /// can miss a Connected change that races an InterfacesAdded (they travel on separate tasks).
    static func watch(_ device: Device1, peer: PeerAddress) async throws -> ConnectionChanges {
        do {
            return try await device.connectionChanges()
        } catch {
            throw RadioError(.failed, "cannot watch \(peer)", cause: error)
        }
    }

    /// On an established connection (see `establish`): finds the transfer service's characteristics, subscribes
    /// to the data characteristic and reads the MTU. `changes` comes from `watch`, made before connecting.
    static func subscribe(to peer: PeerAddress, device: Device1, bluez: BlueZ, options: BlueZRadioOptions,
                          changes: ConnectionChanges, lease: DeviceLease, staleCaches: StaleCaches,
                          transport: LinkTransport, setup: [LinkSetupPhase],
                          log: @escaping @Sendable (String) -> Void) async throws
        -> BlueZRadioLink {
        let started = options.clock.now
        let request: GattCharacteristic1
        let data: GattCharacteristic1
        do {
            request = try await device.characteristic(BlueZTransferService.requestUUID,
                                                      service: BlueZTransferService.serviceUUID)
            data = try await device.characteristic(BlueZTransferService.dataUUID,
                                                   service: BlueZTransferService.serviceUUID)
        } catch {
            throw RadioError(.unreachable, "\(peer) serves no handoff transfer service", cause: error)
        }
        var mtu = options.fallbackMTU
        if let reported = try? await data.mtu() {
            mtu = reported
        } else if let reported = try? await request.mtu() {
            mtu = reported
        }
        let values: AsyncStream<Data>
        do {
            values = try await data.notifications()
        } catch {
            if StaleAttributeCache.explains(error) { throw StaleAttributeCache(underlying: error) }
            throw RadioError(error, while: "cannot subscribe to \(peer)'s data characteristic", fallback: .disconnected)
        }
        let link = BlueZRadioLink(peer: peer, mtu: mtu, device: device, request: request, lease: lease,
                                  staleCaches: staleCaches, transport: transport,
                                  setup: setup + [LinkSetupPhase("subscribe", options.clock.duration(since: started))],
                                  log: log)
        link.start(values: values, changes: changes, clock: options.clock, log: log)
        log("link to \(peer) up over \(transport), ATT MTU \(mtu)")
        return link
    }

    /// Forwards notifications, and finishes the stream when the device is no longer connected (or is gone).
    private func start(values: AsyncStream<Data>, changes: ConnectionChanges, clock: any HandoffClock,
                       log: @escaping @Sendable (String) -> Void) {
        let continuation = self.continuation
        let device = self.device
        let peer = self.peer
        let pump = Task {
            for await value in values { continuation.yield([UInt8](value)) }
            if !Task.isCancelled { log("link to \(peer): the notification subscription ended") }
            continuation.finish()
        }
        let watcher = Task {
            await Self.waitForDisconnection(of: device, changes: changes, clock: clock)
            guard !Task.isCancelled else { return }
            log("link to \(peer): the device is no longer connected")
            continuation.finish()
            pump.cancel()
        }
        tasks.withLock { $0 = [pump, watcher] }
    }

    /// Writes `value` to the request characteristic with response.
    func write(_ value: [UInt8]) async throws {
        guard value.count <= WireProtocol.maximumValueLength else {
            throw RadioError(.valueTooLong, "a write of \(value.count) bytes exceeds 512")
        }
        guard !closed.withLock({ $0 }) else { throw RadioError(.disconnected, "the link to \(peer) is closed") }
        do {
            try await request.write(Data(value), type: .request)
        } catch {
            // The subscription succeeded on the cached table but the request characteristic's handle did not:
            // the next connect to this device starts from a fresh service discovery (see StaleAttributeCache).
            if StaleAttributeCache.explains(error) { staleCaches.mark(device.path) }
            let stillConnected = (try? await device.properties().connected) == true
            throw RadioError(error, while: "write to \(peer) failed", fallback: stillConnected ? .failed : .disconnected)
        }
    }

    /// Unsubscribes, ends `notifications`, disconnects the device and, once it is disconnected, gives its lease
    /// back. Idempotent.
    func disconnect() async {
        let wasClosed = closed.withLock { state -> Bool in
            defer { state = true }
            return state
        }
        guard !wasClosed else { return }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        continuation.finish()
        let device = self.device
        await lease.disconnectAndRelease(log: log) { try? await device.disconnect(timeout: .seconds(5)) }
    }

    /// Returns when `device` reports `Connected` false in a PropertiesChanged, or when bluetoothd, asked every
    /// two seconds of `clock`, no longer says it is connected (the device object or bluetoothd went away).
    private static func waitForDisconnection(of device: Device1, changes: ConnectionChanges,
                                             clock: any HandoffClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await connected in changes where !connected { return }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await clock.sleep(for: .seconds(2))
                    if Task.isCancelled { return }
                    if await device.connectedNow() != true { return }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }
}

/// The subscription to a peer's data characteristic was refused in a way that says our bluetoothd's cached copy of
/// the peer's attribute table is out of date: the peer's bluetoothd or handoffd restarted and registered the
/// transfer service at other handles, and, as we are not bonded, no Service Changed indication told ours. Writing
/// the cached descriptor handle then lands on another attribute (`Write Not Permitted`, `Invalid Handle`,
/// `Attribute Not Found`, `Read Not Permitted`).
struct StaleAttributeCache: Error {
    let underlying: BlueZError

    static func explains(_ error: BlueZError) -> Bool {
        guard let code = error.code.attCode else { return false }
        return [.invalidHandle, .readNotPermitted, .writeNotPermitted, .attributeNotFound].contains(code)
    }
}

/// Devices whose cached attribute table a refused write showed to be stale, for the radio's next connect to them.
/// Forgetting the device drops the table on bluetoothd 5.87 and later; 5.66 keeps the table of a peer that
/// advertises no name (Docs/reliability.md).
final class StaleCaches: Sendable {
    private let paths = Locked<Set<ObjectPath>>([])

    func mark(_ path: ObjectPath) {
        paths.withLock { _ = $0.insert(path) }
    }

    /// Whether `path` was marked, forgetting the mark.
    func take(_ path: ObjectPath) -> Bool {
        paths.withLock { $0.remove(path) != nil }
    }
}
