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
    public func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let path = try devicePath(of: peer)
        let device = await bluez.device(at: path)
        let name = adapterName
        let log = options.log
        return try await BlueZRadioLink.open(to: peer, device: device, bluez: bluez, options: options,
                                             log: { text in log?("radio \(name): \(text)") })
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
