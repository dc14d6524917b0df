import BlueZ
import DBus
import Foundation
import HandoffKit
import Synchronization

/// A GATT client connection to a peer's transfer service: writes go to the request characteristic with response,
/// notifications of the data characteristic arrive in `notifications`, which finishes when the device disconnects.
final class BlueZRadioLink: RadioLink {
    let peer: PeerAddress
    let mtu: Int
    let notifications: AsyncStream<[UInt8]>
    private let device: Device1
    private let request: GattCharacteristic1
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let closed = Mutex(false)

    private init(peer: PeerAddress, mtu: Int, device: Device1, request: GattCharacteristic1) {
        self.peer = peer
        self.mtu = mtu
        self.device = device
        self.request = request
        (notifications, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
    }

    /// Connects (retrying `le-connection-abort-by-local`), waits for ServicesResolved, finds the transfer
    /// service's characteristics, subscribes to the data characteristic and reads the MTU.
    static func open(to peer: PeerAddress, device: Device1, bluez: BlueZ, options: BlueZRadioOptions)
        async throws -> BlueZRadioLink {
        let known: Device1.Properties
        do {
            known = try await device.properties()
        } catch {
            throw RadioError(.unreachable, "\(peer) is not known to BlueZ (only scanned devices can be connected)")
        }
        if !known.connected {
            do {
                try await device.connect(attempts: options.connectAttempts)
            } catch {
                throw RadioError(error, while: "cannot connect to \(peer)", fallback: .unreachable)
            }
        }
        do {
            try await device.waitUntilServicesResolved(timeout: options.servicesResolvedTimeout)
        } catch {
            try? await device.disconnect(timeout: .seconds(5))
            throw RadioError(error, while: "services of \(peer) did not resolve", fallback: .unreachable)
        }
        let request: GattCharacteristic1
        let data: GattCharacteristic1
        do {
            // The BlueZ layer may apply ServicesResolved before the InterfacesAdded of the characteristics (two
            // signal streams), so wait for the characteristics themselves too.
            try await waitForCharacteristics(of: device, bluez: bluez, timeout: options.servicesResolvedTimeout)
            request = try await device.characteristic(BlueZTransferService.requestUUID,
                                                      service: BlueZTransferService.serviceUUID)
            data = try await device.characteristic(BlueZTransferService.dataUUID,
                                                   service: BlueZTransferService.serviceUUID)
        } catch {
            let services = await device.services().map(\.string).joined(separator: ", ")
            try? await device.disconnect(timeout: .seconds(5))
            throw RadioError(.unreachable, "\(peer) serves no handoff transfer service (\(error); its services: "
                                 + "\(services.isEmpty ? "none" : services))")
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
            throw RadioError(error, while: "cannot subscribe to \(peer)'s data characteristic", fallback: .disconnected)
        }
        let link = BlueZRadioLink(peer: peer, mtu: mtu, device: device, request: request)
        link.start(values: values, bluez: bluez)
        return link
    }

    /// Waits until both transfer characteristics are in the mirror under `device`.
    private static func waitForCharacteristics(of device: Device1, bluez: BlueZ, timeout: Duration)
        async throws(BlueZError) {
        let path = device.path
        let wanted = Set([BlueZTransferService.requestUUID.string, BlueZTransferService.dataUUID.string])
        try await bluez.wait(timeout: timeout, "the transfer characteristics of \(path)") { tree in
            let found = tree.paths(with: BlueZNames.gattCharacteristic1).filter { path.isAncestor(of: $0) }
                .compactMap { try? tree.properties($0, BlueZNames.gattCharacteristic1)?["UUID"]?.get(String.self) }
            return wanted.isSubset(of: Set(found.map { $0.lowercased() }))
        }
    }

    /// Forwards notifications, and finishes the stream when the device is no longer connected (or is gone).
    private func start(values: AsyncStream<Data>, bluez: BlueZ) {
        let continuation = self.continuation
        let path = device.path
        let pump = Task {
            for await value in values { continuation.yield([UInt8](value)) }
            continuation.finish()
        }
        let watcher = Task {
            try? await bluez.wait(timeout: .seconds(365 * 24 * 3600), "\(path) disconnected") { tree in
                guard let properties = tree.properties(path, BlueZNames.device1) else { return true }
                return (try? properties["Connected"]?.get(Bool.self)) != true
            }
            guard !Task.isCancelled else { return }
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
            let stillConnected = (try? await device.properties().connected) == true
            throw RadioError(error, while: "write to \(peer) failed", fallback: stillConnected ? .failed : .disconnected)
        }
    }

    /// Unsubscribes, ends `notifications` and disconnects the device. Idempotent.
    func disconnect() async {
        let wasClosed = closed.withLock { state -> Bool in
            defer { state = true }
            return state
        }
        guard !wasClosed else { return }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        continuation.finish()
        try? await device.disconnect(timeout: .seconds(5))
    }
}
