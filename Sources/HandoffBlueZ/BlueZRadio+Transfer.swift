import BlueZ
import DBus
import HandoffKit

extension BlueZRadio {
    /// Registers the transfer service (a GATT application under `/org/handoff/…`) on the adapter.
    /// - Throws: `RadioError` `.failed` when a service is already open on this radio or bluetoothd refuses it.
    public func openTransferService() async throws -> any TransferService {
        guard !serviceOpen else { throw RadioError(.failed, "the transfer service is already open on \(adapterName)") }
        serviceOpen = true
        do {
            let name = adapterName
            let log = options.log
            return try await BlueZTransferService.open(
                on: adapter, bluez: bluez, fallbackMTU: options.fallbackMTU,
                log: { text in log?("radio \(name): \(text)") },
                onClose: { [weak self] in await self?.serviceClosed() })
        } catch {
            serviceOpen = false
            throw RadioError(error, while: "cannot register the transfer service on \(adapterName)")
        }
    }

    func serviceClosed() {
        serviceOpen = false
    }

    /// Connects to `peer` (a device path from a `ScanEvent`, or a Bluetooth address seen by this adapter), waits
    /// for its services, subscribes to the data characteristic and returns the link.
    /// - Throws: `RadioError` `.unreachable` when the device is unknown, cannot be connected or serves no transfer
    ///   service; `.disconnected` when it drops while subscribing.
    ///
    /// When the subscription fails because bluetoothd's cached attribute table of the peer is stale (see
    /// `StaleAttributeCache`), the device is disconnected and removed, which drops the cache, and the connection
    /// is made once more from the peer's next advertisement, with a fresh service discovery.
    public func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let path = try devicePath(of: peer)
        let device = await bluez.device(at: path)
        let name = adapterName
        let log = options.log
        let say: @Sendable (String) -> Void = { text in log?("radio \(name): \(text)") }
        do {
            return try await BlueZRadioLink.open(to: peer, device: device, adapter: adapter, bluez: bluez, options: options,
                                                 log: say)
        } catch let stale as StaleAttributeCache {
            say("\(peer): the cached attribute table looks stale (\(stale.underlying)); forgetting the device and "
                + "connecting afresh")
            try? await device.disconnect(timeout: .seconds(5))
            try? await adapter.removeDevice(device)
        }
        do {
            return try await BlueZRadioLink.open(to: peer, device: device, adapter: adapter, bluez: bluez, options: options,
                                                 log: say)
        } catch let stale as StaleAttributeCache {
            throw RadioError(stale.underlying, while: "cannot subscribe to \(peer)'s data characteristic, even after "
                                 + "discovering its services afresh", fallback: .disconnected)
        }
    }

    /// The Device1 path for a peer: its own text when it is a path under this adapter, or the path BlueZ gives
    /// the address under this adapter.
    func devicePath(of peer: PeerAddress) throws -> ObjectPath {
        if let path = ObjectPath(rawValue: peer.rawValue), peer.rawValue.hasPrefix("/") {
            guard adapter.path.isAncestor(of: path) else {
                throw RadioError(.unreachable, "\(peer) is not a device of \(adapterName)")
            }
            return path
        }
        guard let address = BluetoothAddress(peer.rawValue),
              let path = ObjectPath(rawValue: "\(adapter.path.rawValue)/\(address.pathElement)") else {
            throw RadioError(.unreachable, "\(peer) is neither a BlueZ device path nor a Bluetooth address")
        }
        return path
    }
}
