/// An exported object: its interfaces and whether it is an ObjectManager root.
struct ExportedObject: Sendable {
    var interfaces: [ExportedInterface]
    var isObjectManager: Bool
    /// One queue per interface exported with `callOrder: .serial`.
    var serialQueues: [InterfaceName: SerialCallQueue] = [:]

    init(interfaces: [ExportedInterface], isObjectManager: Bool) {
        self.interfaces = interfaces
        self.isObjectManager = isObjectManager
        for interface in interfaces where interface.callOrder == .serial {
            serialQueues[interface.name] = SerialCallQueue()
        }
    }

    /// The serial queue a call to `member` (of `interface`, if given) must go through, if any.
    func serialQueue(interface: InterfaceName?, member: MemberName) -> SerialCallQueue? {
        guard !serialQueues.isEmpty else { return nil }
        if let interface { return serialQueues[interface] }
        return interfaces.first { $0.method(named: member) != nil }.flatMap { serialQueues[$0.name] }
    }

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
        let removed = objects.removeValue(forKey: path)
        removed?.serialQueues.values.forEach { $0.finish() }
        return removed
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
