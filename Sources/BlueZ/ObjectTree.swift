import DBus

/// A mirror of bluetoothd's object tree (what `GetManagedObjects` returns), kept current by the
/// InterfacesAdded, InterfacesRemoved and PropertiesChanged signals.
///
/// The owner subscribes to those signals *before* calling GetManagedObjects, so nothing falls between the
/// snapshot and the first signal; signals for paths the mirror does not know are tolerated (a
/// PropertiesChanged for an unknown object is dropped, as the next InterfacesAdded brings the full set).
/// BlueZ only links child to parent (`Device1.Adapter`, `GattService1.Device`), so ``children(of:)`` walks
/// paths instead.
public struct ObjectTree: Sendable, Equatable {
    /// Interfaces and their properties, per object.
    public private(set) var objects: [ObjectPath: [String: [String: Variant]]] = [:]

    /// What one signal changed, for the owner to turn into events.
    public struct Change: Sendable, Equatable {
        /// The object.
        public var path: ObjectPath
        /// The interface concerned.
        public var interface: String
        /// What happened to it.
        public var kind: Kind
        /// How the interface changed.
        public enum Kind: Sendable, Equatable {
            /// The interface appeared on the object.
            case added
            /// Properties changed (names of changed and invalidated properties).
            case changed(Set<String>)
            /// The interface went away; the last known properties are kept here.
            case removed([String: Variant])
        }
    }

    /// An empty mirror.
    public init() {}

    /// Replaces everything with a GetManagedObjects snapshot; returns an `added` change for every interface.
    @discardableResult
    public mutating func reset(to snapshot: [ObjectPath: [String: [String: Variant]]]) -> [Change] {
        objects = snapshot
        return snapshot.keys.sorted().flatMap { path in
            (snapshot[path] ?? [:]).keys.sorted().map { Change(path: path, interface: $0, kind: .added) }
        }
    }

    /// Forgets everything (bluetoothd left the bus); returns a `removed` change for every interface.
    @discardableResult
    public mutating func clear() -> [Change] {
        let old = objects
        objects = [:]
        return old.keys.sorted().flatMap { path in
            (old[path] ?? [:]).sorted(by: { $0.key < $1.key }).map {
                Change(path: path, interface: $0.key, kind: .removed($0.value))
            }
        }
    }

    /// Applies `InterfacesAdded(o, a{sa{sv}})`.
    public mutating func interfacesAdded(_ path: ObjectPath, _ interfaces: [String: [String: Variant]]) -> [Change] {
        var object = objects[path] ?? [:]
        var changes: [Change] = []
        for (name, properties) in interfaces.sorted(by: { $0.key < $1.key }) {
            if var existing = object[name] {
                existing.merge(properties) { _, new in new }
                object[name] = existing
                changes.append(Change(path: path, interface: name, kind: .changed(Set(properties.keys))))
            } else {
                object[name] = properties
                changes.append(Change(path: path, interface: name, kind: .added))
            }
        }
        objects[path] = object
        return changes
    }

    /// Applies `InterfacesRemoved(o, as)`; unknown paths or interfaces are ignored.
    public mutating func interfacesRemoved(_ path: ObjectPath, _ names: [String]) -> [Change] {
        guard var object = objects[path] else { return [] }
        var changes: [Change] = []
        for name in names {
            if let last = object.removeValue(forKey: name) {
                changes.append(Change(path: path, interface: name, kind: .removed(last)))
            }
        }
        objects[path] = object.isEmpty ? nil : object
        return changes
    }

    /// Applies `PropertiesChanged(s, a{sv}, as)`; dropped when the object or interface is unknown.
    public mutating func propertiesChanged(
        _ path: ObjectPath, interface: String, changed: [String: Variant], invalidated: [String]
    ) -> [Change] {
        guard var properties = objects[path]?[interface] else { return [] }
        properties.merge(changed) { _, new in new }
        for name in invalidated { properties.removeValue(forKey: name) }
        objects[path]?[interface] = properties
        return [Change(path: path, interface: interface, kind: .changed(Set(changed.keys).union(invalidated)))]
    }

    /// One interface's properties, or nil.
    public func properties(_ path: ObjectPath, _ interface: InterfaceName) -> [String: Variant]? {
        objects[path]?[interface.rawValue]
    }

    /// Objects carrying `interface`, sorted by path.
    public func paths(with interface: InterfaceName) -> [ObjectPath] {
        objects.keys.filter { objects[$0]?[interface.rawValue] != nil }.sorted()
    }

    /// Objects strictly below `path` (BlueZ only links child to parent, so this walks the paths).
    public func children(of path: ObjectPath) -> [ObjectPath] {
        objects.keys.filter { path.isAncestor(of: $0) }.sorted()
    }
}
