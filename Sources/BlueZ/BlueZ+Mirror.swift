import DBus
import Foundation

/// Keeping ``BlueZ/tree`` in step with bluetoothd.
extension BlueZ {
    static let bluezName: BusName = "org.bluez"
    static let objectManagerInterface: InterfaceName = "org.freedesktop.DBus.ObjectManager"
    static let propertiesInterface: InterfaceName = "org.freedesktop.DBus.Properties"

    /// Subscribes to NameOwnerChanged, InterfacesAdded/Removed and PropertiesChanged *before* reading
    /// GetManagedObjects, so no change falls between the snapshot and the signals.
    func start() async throws(BlueZError) {
        do {
            let owners = try await connection.nameOwnerChanges(of: Self.bluezName)
            let objectManager = try await connection.signals(
                matching: MatchRule.signal(interface: Self.objectManagerInterface).path(.root))
            let properties = try await connection.signals(
                matching: MatchRule.signal(interface: Self.propertiesInterface, member: "PropertiesChanged")
                    .pathNamespace("/org/bluez"))
            pumps.append(Task { [weak self] in
                for await change in owners { await self?.ownerChanged(to: change.newOwner) }
            })
            pumps.append(Task { [weak self] in
                for await message in objectManager { await self?.received(message) }
            })
            pumps.append(Task { [weak self] in
                for await message in properties { await self?.received(message) }
            })
            owner = try await connection.owner(of: Self.bluezName)
        } catch {
            throw BlueZError(.bus, "cannot watch org.bluez: \(error.message)", cause: error)
        }
        if owner != nil { await resynchronise() }
    }

    /// bluetoothd left (nil) or (re)appeared.
    func ownerChanged(to newOwner: BusName?) async {
        guard newOwner != owner else { return }
        owner = newOwner
        if newOwner == nil {
            debug("org.bluez left the bus; forgetting its objects")
            publish(tree.clear())
            markRegistrationsLost()
        } else {
            ownerAppearedAt = .now
            debug("org.bluez is back as \(newOwner?.rawValue ?? "?"); re-reading its objects")
            await resynchronise()
        }
    }

    /// Reads GetManagedObjects into the mirror (clearing it first) and re-registers what was lost.
    func resynchronise() async {
        do {
            let reply = try await connection.call(
                destination: Self.bluezName, path: .root, interface: Self.objectManagerInterface,
                member: "GetManagedObjects", timeout: .seconds(10))
            guard let first = reply.first else { return }
            let snapshot = try [ObjectPath: [String: [String: Variant]]](dbusValue: first)
            generation += 1
            publish(tree.clear())
            publish(tree.reset(to: snapshot))
            await restoreRegistrations()
        } catch {
            debug("GetManagedObjects failed: \(error)")
        }
    }

    /// One signal from bluetoothd.
    func received(_ message: Message) {
        if let owner, let sender = message.sender, sender != owner { return }
        guard let member = message.member?.rawValue, let path = message.path,
              let arguments = try? message.arguments() else { return }
        var changes: [ObjectTree.Change] = []
        switch member {
        case "InterfacesAdded":
            guard arguments.count == 2, case .objectPath(let object) = arguments[0],
                  let interfaces = try? [String: [String: Variant]](dbusValue: arguments[1]) else { return }
            changes = tree.interfacesAdded(object, interfaces)
        case "InterfacesRemoved":
            guard arguments.count == 2, case .objectPath(let object) = arguments[0],
                  let names = try? [String](dbusValue: arguments[1]) else { return }
            changes = tree.interfacesRemoved(object, names)
        case "PropertiesChanged":
            guard arguments.count == 3, let interface = try? String(dbusValue: arguments[0]),
                  let changed = try? [String: Variant](dbusValue: arguments[1]),
                  let invalidated = try? [String](dbusValue: arguments[2]) else { return }
            changes = tree.propertiesChanged(path, interface: interface, changed: changed, invalidated: invalidated)
        default:
            return
        }
        publish(changes)
        if changes.contains(where: { Self.isManagerAppearance($0) }) {
            Task { await self.restoreRegistrations() }
        }
    }

    static func isManagerAppearance(_ change: ObjectTree.Change) -> Bool {
        guard change.kind == .added else { return false }
        return change.interface == BlueZNames.leAdvertisingManager1 || change.interface == BlueZNames.gattManager1
    }

    /// Hands changes to every watcher.
    func publish(_ changes: [ObjectTree.Change]) {
        guard !changes.isEmpty else { return }
        for watcher in changeWatchers.values { watcher.yield(changes) }
    }

    /// A stream of every change to the mirror from now on; ends when the caller stops iterating.
    func changes() -> AsyncStream<[ObjectTree.Change]> {
        let id = makeID()
        let (stream, continuation) = AsyncStream<[ObjectTree.Change]>.makeStream(bufferingPolicy: .unbounded)
        changeWatchers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeWatcher(id) }
        }
        return stream
    }

    func removeWatcher(_ id: UInt64) {
        changeWatchers.removeValue(forKey: id)
    }

    /// Waits until `condition` holds on the mirror: checks now, then after every change.
    ///
    /// - Throws: ``BlueZError`` `.timeout` after `timeout`, or when the task is cancelled.
    public func wait(
        timeout: Duration, _ what: String, until condition: @Sendable (ObjectTree) -> Bool
    ) async throws(BlueZError) {
        if condition(tree) { return }
        let stream = changes()
        let deadline = ContinuousClock.now + timeout
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            await self?.publishTick()
        }
        defer { timer.cancel() }
        for await _ in stream {
            if condition(tree) { return }
            if ContinuousClock.now >= deadline || Task.isCancelled { break }
        }
        throw BlueZError(.timeout, "timed out after \(timeout) waiting for \(what)")
    }

    /// Wakes waiters so they can notice their deadline.
    func publishTick() {
        for watcher in changeWatchers.values { watcher.yield([]) }
    }
}
