/// An exported object: its interfaces and whether it is an ObjectManager root.
struct ExportedObject: Sendable {
    var interfaces: [ExportedInterface]
    var isObjectManager: Bool

    func interface(named name: InterfaceName) -> ExportedInterface? { interfaces.first { $0.name == name } }
}

/// The exported objects of one connection, by path.
struct ObjectRegistry: Sendable {
    private(set) var objects: [ObjectPath: ExportedObject] = [:]

    mutating func insert(_ object: ExportedObject, at path: ObjectPath) -> Bool {
        guard objects[path] == nil else { return false }
        objects[path] = object
        return true
    }

    mutating func remove(_ path: ObjectPath) -> ExportedObject? {
        objects.removeValue(forKey: path)
    }

    /// The nearest ObjectManager strictly above `path`, which announces `path`'s arrival and departure.
    func manager(above path: ObjectPath) -> ObjectPath? {
        var current = path.parent
        while let candidate = current {
            if objects[candidate]?.isObjectManager == true { return candidate }
            current = candidate.parent
        }
        return nil
    }

    /// The names of the nodes directly below `path` (exported or intermediate), sorted.
    func children(of path: ObjectPath) -> [String] {
        let depth = path.elements.count
        var names = Set<String>()
        for candidate in objects.keys where path.isAncestor(of: candidate) {
            names.insert(String(candidate.elements[depth]))
        }
        return names.sorted()
    }

    /// The objects strictly below `root`.
    func descendants(of root: ObjectPath) -> [(ObjectPath, ExportedObject)] {
        objects.filter { root.isAncestor(of: $0.key) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
