/// Exporting objects.
extension Connection {
    /// Exports an object at `path` with the given interfaces.
    ///
    /// Every exported object also answers org.freedesktop.DBus.Properties (Get, GetAll, Set),
    /// org.freedesktop.DBus.Introspectable and org.freedesktop.DBus.Peer. With `objectManager: true` it also
    /// implements org.freedesktop.DBus.ObjectManager for the objects below it, as BlueZ requires of a GATT
    /// application root. When an ObjectManager exists above `path`, it emits `InterfacesAdded`.
    ///
    /// - Throws: ``DBusError`` `.invalidValue` when something is already exported at `path`; `.disconnected`.
    public func export(
        _ interfaces: [ExportedInterface], at path: ObjectPath, objectManager: Bool = false
    ) async throws(DBusError) {
        let object = ExportedObject(interfaces: interfaces, isObjectManager: objectManager)
        let (inserted, manager) = core.state.withLock { state in
            (state.objects.insert(object, at: path), state.objects.manager(above: path))
        }
        guard !isClosed else { throw DBusError(.disconnected, "the connection is closed") }
        guard inserted else { throw DBusError(.invalidValue, "an object is already exported at \(path)") }
        guard let manager, !interfaces.isEmpty else { return }
        let added: [String: [String: Variant]]
        do {
            added = try await core.interfacesAndProperties(object)
        } catch {
            throw DBusError(.remote, "a property getter failed", cause: error)
        }
        try emitSignal(
            path: manager, interface: StandardInterfaces.objectManager, member: "InterfacesAdded",
            arguments: [.objectPath(path), added.dbusValue])
    }

    /// Removes the object at `path`; an ObjectManager above it emits `InterfacesRemoved`.
    ///
    /// - Returns: false when nothing was exported there.
    @discardableResult
    public func unexport(_ path: ObjectPath) throws(DBusError) -> Bool {
        let (removed, manager) = core.state.withLock { state in
            (state.objects.remove(path), state.objects.manager(above: path))
        }
        guard let removed else { return false }
        if let manager, !removed.interfaces.isEmpty, !isClosed {
            try emitSignal(
                path: manager, interface: StandardInterfaces.objectManager, member: "InterfacesRemoved",
                arguments: [.objectPath(path), removed.interfaces.map(\.name.rawValue).dbusValue])
        }
        return true
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` for an exported object, as a property's owner
    /// does when its value changes (BlueZ GATT notifications work this way).
    public func emitPropertiesChanged(
        path: ObjectPath, interface: InterfaceName, changed: [String: Variant], invalidated: [String] = []
    ) throws(DBusError) {
        try core.emitPropertiesChanged(path: path, interface: interface, changed: changed, invalidated: invalidated)
    }
}
