import DBus
import HandoffShared

/// Whether a peer's own transfer rides on the LE connection to it, so that closing a link of ours never cuts it.
///
/// Two machines share one LE connection. When each connects to the other at the same moment (the laptop shares to
/// the desktop while the desktop continues the laptop's note), both transfers ride on the connection that came up
/// first. A link of ours that ended used to disconnect the device after its linger, and that cut the peer's
/// transfer: its share stalled until its sender gave up on the link and connected again, 10-20 s later (flow-cross,
/// Debian 13, 2026-12-07). The transfer service answers here for what it serves (``BlueZTransferService``: an open
/// channel from the device, or a GATT write from it within ``quietAfterWrite``), and `DeviceLeases` leaves a busy
/// connection up and asks again later. The peer disconnects it when its own link ends.
final class PeerTraffic: Sendable {
    /// How long after a GATT write from a device its connection still counts as carrying its transfer: a GATT
    /// client waits at most this long between writes (its FETCH, ACK or DONE), as the service's channel silence
    /// limit does for channels.
    static let quietAfterWrite: Duration = .seconds(10)

    private let sources = Locked<[Int: @Sendable (ObjectPath) -> Bool]>([:])
    private let serials = Locked(0)

    init() {}

    /// Adds what a service answers for `device`: true while a transfer of the device's rides on the connection.
    /// Returns the key that ``remove(_:)`` takes when the service closes.
    func add(_ source: @escaping @Sendable (ObjectPath) -> Bool) -> Int {
        let key = serials.withLock { value -> Int in
            value += 1
            return value
        }
        sources.withLock { $0[key] = source }
        return key
    }

    /// Removes a source ``add(_:)`` returned `key` for.
    func remove(_ key: Int) {
        sources.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// Whether `device` is using the connection to it for a transfer of its own now.
    func isBusy(_ device: ObjectPath) -> Bool {
        sources.withLock { Array($0.values) }.contains { $0(device) }
    }
}
