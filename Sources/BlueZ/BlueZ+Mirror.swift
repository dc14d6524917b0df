import DBus
import FoundationEssentials
import HandoffShared

/// Keeping ``BlueZ/tree`` in step with bluetoothd.
extension BlueZ {
    /// Subscribes to NameOwnerChanged, InterfacesAdded/Removed and PropertiesChanged *before* reading
    /// GetManagedObjects, so no change falls between the snapshot and the signals.
    func start() async throws(BlueZError) {
        do {
            let owners = try await connection.nameOwnerChanges(of: BlueZNames.service)
            // One rule for every bluetoothd signal, so InterfacesAdded and PropertiesChanged arrive in the order
            // bluetoothd sent them (two streams consumed by two tasks could reorder ServicesResolved before the
            // services it announces).
            let signals = try await connection.signals(matching: MatchRule.signal(sender: BlueZNames.service))
            pumps.append(Task { [weak self] in
                for await change in owners { await self?.ownerChanged(to: change.newOwner) }
            })
            pumps.append(Task { [weak self] in
                for await message in signals { await self?.received(message) }
            })
            owner = try await connection.owner(of: BlueZNames.service)
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
            if heldSignals == nil { heldSignals = [] }   // until the next bluetoothd is read
            publish(tree.clear())
            markRegistrationsLost()
        } else {
            ownerAppearedAt = clock.now
            debug("org.bluez is back as \(newOwner?.rawValue ?? "?"); re-reading its objects")
            await resynchronise()
        }
    }

    /// Reads GetManagedObjects into the mirror (clearing it first) and re-registers what was lost. Signals are held
    /// meanwhile and applied after the snapshot (``heldSignals``).
    ///
    /// A service that has just taken the name may not export its ObjectManager yet (bluezoo does this), so a
    /// failed read is retried a few times.
    func resynchronise() async {
        mirrorReads += 1
        let read = mirrorReads
        if heldSignals == nil { heldSignals = [] }
        for attempt in 1...5 {
            do {
                let reply = try await connection.call(
                    destination: BlueZNames.service, path: .root, interface: BlueZNames.objectManager,
                    member: "GetManagedObjects", timeout: .seconds(10))
                guard read == mirrorReads else { return }   // a newer read took over, and holds the signals
                guard let first = reply.first else { break }
                let snapshot = try [ObjectPath: [String: [String: Variant]]](dbusValue: first)
                generation += 1
                publish(tree.clear())
                publish(tree.reset(to: snapshot))
                applyHeldSignals()
                await restoreRegistrations()
                return
            } catch {
                guard read == mirrorReads else { return }
                debug("GetManagedObjects failed (attempt \(attempt)): \(error)")
                guard owner != nil else { break }
                try? await clock.sleep(for: .milliseconds(200 * attempt))
            }
        }
        if read == mirrorReads { applyHeldSignals() }
    }

    /// Applies the signals held while the mirror was read, in the order they came, and stops holding.
    func applyHeldSignals() {
        guard let held = heldSignals else { return }
        heldSignals = nil
        for message in held { apply(message) }
    }

    /// One signal from bluetoothd: held while the mirror is being read, else applied.
    func received(_ message: Message) {
        if heldSignals != nil {
            heldSignals?.append(message)
            return
        }
        apply(message)
    }

    func apply(_ message: Message) {
        if let owner, let sender = message.sender, sender != owner { return }
        guard let member = message.member?.rawValue, let path = message.path,
              let arguments = try? message.arguments() else { return }
        var changes: [ObjectTree.Change] = []
        switch member {
        case "InterfacesAdded" where message.interface == BlueZNames.objectManager:
            guard arguments.count == 2, case .objectPath(let object) = arguments[0],
                  let interfaces = try? [String: [String: Variant]](dbusValue: arguments[1]) else { return }
            changes = tree.interfacesAdded(object, interfaces)
        case "InterfacesRemoved" where message.interface == BlueZNames.objectManager:
            guard arguments.count == 2, case .objectPath(let object) = arguments[0],
                  let names = try? [String](dbusValue: arguments[1]) else { return }
            changes = tree.interfacesRemoved(object, names)
        case "PropertiesChanged" where message.interface == BlueZNames.properties:
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
        return change.interface == BlueZNames.leAdvertisingManager1.rawValue
            || change.interface == BlueZNames.gattManager1.rawValue
    }

    /// Hands changes to every watcher.
    func publish(_ changes: [ObjectTree.Change]) {
        guard !changes.isEmpty else { return }
        changeBroadcast.publish(changes)
    }

    /// A stream of every change to the mirror from now on; ends when the caller stops iterating.
    func changes() -> AsyncStream<[ObjectTree.Change]> {
        changeBroadcast.subscribe()
    }

    /// Waits until `condition` holds on the mirror: checks now, then after every change.
    ///
    /// - Throws: ``BlueZError`` `.timeout` after `timeout`, or when the task is cancelled.
    public func wait(
        timeout: Duration, _ what: String, until condition: @Sendable (ObjectTree) -> Bool
    ) async throws(BlueZError) {
        if condition(tree) { return }
        let stream = changes()
        let deadline = clock.now + timeout
        let timer = Task { [weak self, clock] in
            try? await clock.sleep(until: deadline)
            await self?.publishTick()
        }
        defer { timer.cancel() }
        for await _ in stream {
            if condition(tree) { return }
            if clock.now >= deadline || Task.isCancelled { break }
        }
        throw BlueZError(.timeout, "timed out after \(timeout) waiting for \(what)")
    }

    /// Wakes waiters so they can notice their deadline.
    func publishTick() {
        changeBroadcast.publish([])
    }
}
