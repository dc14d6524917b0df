import DBus
import HandoffShared

/// bluetoothd keeps one discovery per D-Bus client and adapter: a second StartDiscovery from the same connection
/// is refused (`InProgress`), and one StopDiscovery ends it for everything on that connection. So the layer owns
/// that one discovery per adapter, and each ``DeviceScan`` on the adapter is a user of it: the first user starts it,
/// the last one stops it, a restart restarts it, and a scan that has been stopped can neither stop nor restart the
/// discovery of the scans after it.
///
/// The steps on one adapter (start, restart, stop) run one at a time, each in a task of its own, so a caller's
/// cancellation cannot cut one between its StopDiscovery and its StartDiscovery (that left discovery off), and two
/// cannot interleave their calls (that made bluetoothd hold a discovery for us that no scan knew of: every later
/// StartDiscovery was then refused with `InProgress`, and nothing was heard).
struct DiscoverySession {
    /// The scans sharing this discovery.
    var users: Set<UInt64> = []
    /// The filter of the latest start (bluetoothd forgets a client's filter when it stops, so each start sets it).
    var filter: DiscoveryFilter
    /// bluetoothd's unique name when our StartDiscovery last succeeded, nil while we hold no discovery. A
    /// discovery dies with its bluetoothd, so it runs only while this is the current owner of `org.bluez`.
    var runningUnder: BusName?
}

extension BlueZ {
    /// Adds a user to the adapter's discovery, starting it unless it runs. Returns the user's id.
    /// - Throws: ``BlueZError`` from SetDiscoveryFilter or StartDiscovery; the user is then not added.
    func joinDiscovery(on adapter: ObjectPath, filter: DiscoveryFilter) async throws(BlueZError) -> UInt64 {
        nextID += 1
        let user = nextID
        try await discoveryStep(on: adapter) { bluez throws(BlueZError) in
            try await bluez.startSession(on: adapter, user: user, filter: filter)
        }
        return user
    }

    /// Removes `user`; the last one stops the discovery. Nothing when `user` has left already.
    func leaveDiscovery(on adapter: ObjectPath, user: UInt64) async {
        try? await discoveryStep(on: adapter) { bluez throws(BlueZError) in
            await bluez.endSession(on: adapter, user: user)
        }
    }

    /// StopDiscovery, then SetDiscoveryFilter and StartDiscovery again, for a user that is still one; nothing for a
    /// scan that has been stopped.
    func renewDiscovery(on adapter: ObjectPath, user: UInt64) async throws(BlueZError) {
        try await discoveryStep(on: adapter) { bluez throws(BlueZError) in
            try await bluez.restartSession(on: adapter, user: user)
        }
    }

    // MARK: - The steps (each runs alone on its adapter)

    private func startSession(on adapter: ObjectPath, user: UInt64, filter: DiscoveryFilter) async throws(BlueZError) {
        var session = discoveries[adapter] ?? DiscoverySession(filter: filter)
        if !holds(session) {
            let under = owner
            try await startDiscovery(on: adapter, filter: filter)
            session.runningUnder = under
            session.filter = filter
        }
        session.users.insert(user)
        discoveries[adapter] = session
    }

    private func endSession(on adapter: ObjectPath, user: UInt64) async {
        guard var session = discoveries[adapter], session.users.remove(user) != nil else { return }
        guard session.users.isEmpty else {
            discoveries[adapter] = session
            return
        }
        discoveries[adapter] = nil
        if holds(session) {
            _ = try? await call(adapter, BlueZNames.adapter1, "StopDiscovery")
        }
    }

    private func restartSession(on adapter: ObjectPath, user: UInt64) async throws(BlueZError) {
        guard var session = discoveries[adapter], session.users.contains(user) else { return }
        _ = try? await call(adapter, BlueZNames.adapter1, "StopDiscovery")
        session.runningUnder = nil
        discoveries[adapter] = session
        let under = owner
        try await startDiscovery(on: adapter, filter: session.filter)
        discoveries[adapter]?.runningUnder = under
    }

    /// Whether bluetoothd, as it runs now, holds the session's discovery for us.
    private func holds(_ session: DiscoverySession) -> Bool {
        session.runningUnder != nil && session.runningUnder == owner
    }

    // MARK: - One at a time

    /// Runs `step` when no other step on `adapter` runs, in a task of its own.
    private func discoveryStep(
        on adapter: ObjectPath, _ step: @escaping @Sendable (isolated BlueZ) async throws(BlueZError) -> Void
    ) async throws(BlueZError) {
        let outcome = await Task { () async -> BlueZError? in
            await self.acquireDiscovery(adapter)
            var failure: BlueZError?
            do throws(BlueZError) {
                try await step(self)
            } catch {
                failure = error
            }
            self.releaseDiscovery(adapter)
            return failure
        }.value
        if let outcome { throw outcome }
    }

    private func acquireDiscovery(_ adapter: ObjectPath) async {
        guard discoveryBusy.insert(adapter).inserted else {
            await withCheckedContinuation { discoveryWaiters[adapter, default: []].append($0) }
            return   // handed over by releaseDiscovery, still marked busy
        }
    }

    private func releaseDiscovery(_ adapter: ObjectPath) {
        guard var waiting = discoveryWaiters[adapter], !waiting.isEmpty else {
            discoveryBusy.remove(adapter)
            return
        }
        let next = waiting.removeFirst()
        discoveryWaiters[adapter] = waiting.isEmpty ? nil : waiting
        next.resume()
    }
}
