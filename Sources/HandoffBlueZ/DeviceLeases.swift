import DBus
import HandoffKit
import HandoffShared

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

    private let table = Locked<[ObjectPath: Entry]>([:])
    /// Acquisitions per device, so a lingering disconnection knows whether a link came since.
    private let generations = Locked<[ObjectPath: Int]>([:])
    private let lingering = Locked<[ObjectPath: Task<Void, Never>]>([:])
    /// Where a lingering connection's idle time passes.
    private let clock: any HandoffClock
    /// What the peers' own transfers use, so that no disconnection cuts one.
    let traffic: PeerTraffic

    init(clock: any HandoffClock, traffic: PeerTraffic = PeerTraffic()) {
        self.clock = clock
        self.traffic = traffic
    }

    /// Waits until no other link holds `path`, then holds it. Cancellation does not interrupt the wait: a lease
    /// is always given back by a link's disconnection, which is bounded by its own timeout.
    func acquire(_ path: ObjectPath) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = table.withLock { table -> Bool in
                var entry = table[path] ?? Entry()
                defer { table[path] = entry }
                guard entry.held else {
                    entry.held = true
                    generations.withLock { $0[path, default: 0] += 1 }
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
            generations.withLock { $0[path, default: 0] += 1 }
            return entry.waiters.removeFirst()     // stays held: handed over
        }
        next?.resume()
    }

    /// Gives `path` back now and disconnects the device after `idle`, unless a link took the device meanwhile:
    /// an idle connection is reused (the next channel opens on it at once), a closing one never is, since the
    /// disconnection holds the device's lease while it runs.
    ///
    /// While the device's own transfer rides on the connection (``PeerTraffic``), it is left up and asked about
    /// again every `idle`; `log` says so once. When the radio closes (``flushLingering()``) it is disconnected.
    func releaseLingering(_ path: ObjectPath, idle: Duration, log: @escaping @Sendable (String) -> Void = { _ in },
                          disconnect: @escaping @Sendable () async -> Void) {
        var generation = generations.withLock { $0[path, default: 0] }
        release(path)
        let task = Task { [traffic] in
            var told = false
            while true {
                let flushed = (try? await clock.sleep(for: idle)) == nil      // cut short by `flushLingering()`
                let taken = table.withLock { table -> Bool in
                    var entry = table[path] ?? Entry()
                    guard !entry.held, generations.withLock({ $0[path, default: 0] }) == generation else { return false }
                    entry.held = true
                    generations.withLock { $0[path, default: 0] += 1 }
                    table[path] = entry
                    return true
                }
                guard taken else { return }
                if !flushed, traffic.isBusy(path) {
                    if !told { log("\(path.elements.last ?? "?"): left connected: its own transfer rides on the connection") }
                    told = true
                    generation = generations.withLock { $0[path, default: 0] }
                    release(path)
                    continue
                }
                await disconnect()
                release(path)
                return
            }
        }
        lingering.withLock { $0[path] = task }
    }

    /// Whether `path`'s own transfer rides on the connection to it (``PeerTraffic``).
    func peerIsBusy(_ path: ObjectPath) -> Bool {
        traffic.isBusy(path)
    }

    /// Runs every lingering disconnection now and waits for them (when the radio closes).
    func flushLingering() async {
        let tasks = lingering.withLock { table in
            defer { table = [:] }
            return Array(table.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}

/// A lease on one device, given back exactly once, by the link's `disconnect()` (also after the link dropped by
/// itself: its owner must still disconnect it) or by a connect that failed.
final class DeviceLease: Sendable {
    let path: ObjectPath
    private let leases: DeviceLeases
    private let returned = Locked(false)

    init(path: ObjectPath, leases: DeviceLeases) {
        self.path = path
        self.leases = leases
    }

    /// Gives the lease back. Idempotent.
    func release() {
        if returnOnce() { leases.release(path) }
    }

    /// Gives the lease back now and disconnects after `idle` unless another link takes the device (see
    /// `DeviceLeases.releaseLingering`). Idempotent, and nothing once `release()` ran.
    func releaseLingering(idle: Duration, log: @escaping @Sendable (String) -> Void = { _ in },
                          disconnect: @escaping @Sendable () async -> Void) {
        if returnOnce() { leases.releaseLingering(path, idle: idle, log: log, disconnect: disconnect) }
    }

    /// Disconnects the device and then gives the lease back, as a link that does not linger ends; while the
    /// device's own transfer rides on the connection (``PeerTraffic``), leaves it up instead and disconnects it
    /// once that transfer is over, as a lingering link does.
    func disconnectAndRelease(recheck: Duration = .seconds(2), log: @escaping @Sendable (String) -> Void,
                              disconnect: @escaping @Sendable () async -> Void) async {
        guard leases.peerIsBusy(path) else {
            await disconnect()
            release()
            return
        }
        releaseLingering(idle: recheck, log: log, disconnect: disconnect)
    }

    private func returnOnce() -> Bool {
        returned.withLock { state -> Bool in
            defer { state = true }
            return !state
        }
    }
}
