import DBus
import Synchronization

/// One link per peer device at a time, and never one on a connection that is going away.
///
/// A transfer ends by disconnecting its link in the background, so a second continue right after the first used
/// to find bluetoothd still saying `Connected` while the first link's Disconnect was under way. It reused that
/// connection and its subscription failed with `NotConnected` (issue 9 §5). Now `connect(to:)` takes the
/// device's lease first: it waits while another link holds the device or its disconnection runs, and the link
/// gives the lease back only once its disconnection has finished (or the device disconnected by itself).
final class DeviceLeases: Sendable {
    private struct Entry {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let table = Mutex<[ObjectPath: Entry]>([:])

    /// Waits until no other link holds `path`, then holds it. Cancellation does not interrupt the wait: a lease
    /// is always given back by a link's disconnection, which is bounded by its own timeout.
    func acquire(_ path: ObjectPath) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = table.withLock { table -> Bool in
                var entry = table[path] ?? Entry()
                defer { table[path] = entry }
                guard entry.held else {
                    entry.held = true
                    return true
                }
                entry.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Whether a link holds `path` now.
    func isHeld(_ path: ObjectPath) -> Bool {
        table.withLock { $0[path]?.held == true }
    }

    /// Gives `path` back: the longest waiter gets it, or it is free.
    func release(_ path: ObjectPath) {
        let next = table.withLock { table -> CheckedContinuation<Void, Never>? in
            guard var entry = table[path], entry.held else { return nil }
            defer { table[path] = entry.waiters.isEmpty && !entry.held ? nil : entry }
            guard !entry.waiters.isEmpty else {
                entry.held = false
                return nil
            }
            return entry.waiters.removeFirst()     // stays held: handed over
        }
        next?.resume()
    }
}

/// A lease on one device, given back exactly once (by `disconnect()` or by the link ending on its own).
final class DeviceLease: Sendable {
    let path: ObjectPath
    private let leases: DeviceLeases
    private let returned = Mutex(false)

    init(path: ObjectPath, leases: DeviceLeases) {
        self.path = path
        self.leases = leases
    }

    /// Gives the lease back. Idempotent.
    func release() {
        let first = returned.withLock { state -> Bool in
            defer { state = true }
            return !state
        }
        if first { leases.release(path) }
    }
}
