import DBus

extension BlueZ {
    /// Every adapter in the mirror, sorted by path.
    public func adapters() -> [Adapter1.Properties] {
        tree.paths(with: BlueZNames.adapter1).compactMap { path in
            tree.objects[path].flatMap { Adapter1.Properties(path: path, interfaces: $0) }
        }
    }

    /// The adapter called `name` (`hci0`) or with address `name` (`00:AA:01:00:00:23`).
    ///
    /// - Throws: ``BlueZError`` `.unavailable(.noBlueZ)` when bluetoothd is not running,
    ///   `.unavailable(.noAdapter)` when no adapter matches.
    public func adapter(named name: String) throws(BlueZError) -> Adapter1 {
        guard owner != nil else { throw BlueZError(.unavailable(.noBlueZ), "bluetoothd (org.bluez) is not running") }
        let wantedAddress = BluetoothAddress(name)
        for adapter in adapters()
        where adapter.name == name || (wantedAddress != nil && adapter.address == wantedAddress) {
            return Adapter1(path: adapter.path, bluez: self)
        }
        let known = adapters().map(\.name).joined(separator: ", ")
        throw BlueZError(.unavailable(.noAdapter), "no adapter '\(name)' (known: \(known.isEmpty ? "none" : known))")
    }

    /// The first adapter, for machines with one.
    public func defaultAdapter() throws(BlueZError) -> Adapter1 {
        guard owner != nil else { throw BlueZError(.unavailable(.noBlueZ), "bluetoothd (org.bluez) is not running") }
        guard let first = adapters().first else { throw BlueZError(.unavailable(.noAdapter), "no adapter") }
        return Adapter1(path: first.path, bluez: self)
    }

    /// Waits until an adapter called `name` exists (bluetoothd adds adapters shortly after it starts).
    public func waitForAdapter(named name: String, timeout: Duration = .seconds(10)) async throws(BlueZError)
        -> Adapter1
    {
        try await wait(timeout: timeout, "adapter \(name)") { tree in
            tree.paths(with: BlueZNames.adapter1).contains { $0.elements.last.map(String.init) == name }
        }
        return try adapter(named: name)
    }

    /// Waits until bluetoothd has at least one adapter and returns its default one: the lowest-numbered (`hci0`
    /// before `hci1`), which is the first bluetoothd registered and what `bluetoothctl` marks `[default]`, unless
    /// adapters came and went since it started.
    /// - Throws: ``BlueZError`` `.timeout` when no adapter appears within `timeout`.
    public func waitForDefaultAdapter(timeout: Duration = .seconds(10)) async throws(BlueZError) -> Adapter1 {
        try await wait(timeout: timeout, "a Bluetooth adapter") { tree in !tree.paths(with: BlueZNames.adapter1).isEmpty }
        let names = tree.paths(with: BlueZNames.adapter1).compactMap { $0.elements.last.map(String.init) }
        guard let name = Self.defaultAdapterName(among: names) else {
            throw BlueZError(.unavailable(.noAdapter), "bluetoothd has no adapter")
        }
        return try adapter(named: name)
    }

    /// The default among adapter names: the `hciN` with the lowest N, else the first by name.
    static func defaultAdapterName(among names: [String]) -> String? {
        func index(_ name: String) -> Int? { name.hasPrefix("hci") ? Int(name.dropFirst(3)) : nil }
        return names.min { a, b in
            switch (index(a), index(b)) {
            case let (x?, y?): x < y
            case (.some, nil): true
            case (nil, .some): false
            case (nil, nil): a < b
            }
        }
    }

    /// Adapters appearing, disappearing and being switched on or off, from now on (current ones first, as
    /// `.added`). A power change is reported once bluetoothd has applied it (its `PropertiesChanged`), whoever
    /// asked for it: this process, `bluetoothctl power off`, rfkill or a settings panel.
    public func adapterEvents() -> AsyncStream<AdapterEvent> {
        let stream = changes()
        let current = adapters()
        return AsyncStream { continuation in
            for adapter in current { continuation.yield(.added(adapter)) }
            let task = Task { [weak self] in
                for await batch in stream {
                    for change in batch where change.interface == BlueZNames.adapter1.rawValue {
                        switch change.kind {
                        case .added:
                            if let props = await self?.adapterProperties(change.path) {
                                continuation.yield(.added(props))
                            }
                        case .removed:
                            continuation.yield(.removed(change.path))
                        case .changed(let names):
                            guard let props = await self?.adapterProperties(change.path) else { break }
                            if names.contains("Powered") { continuation.yield(.powered(change.path, props.powered)) }
                            if names.contains("Discovering") {
                                continuation.yield(.discovering(change.path, props.discovering))
                            }
                        }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func adapterProperties(_ path: ObjectPath) -> Adapter1.Properties? {
        tree.objects[path].flatMap { Adapter1.Properties(path: path, interfaces: $0) }
    }
}

/// An adapter came, went, or was switched on or off (see ``BlueZ/adapterEvents()``).
public enum AdapterEvent: Sendable, Equatable {
    /// An adapter appeared (or existed when the stream started).
    case added(Adapter1.Properties)
    /// The adapter at this path went away.
    case removed(ObjectPath)
    /// The adapter at this path was switched on (true) or off (false).
    case powered(ObjectPath, Bool)
    /// The adapter's `Discovering` changed: true while bluetoothd runs a discovery for any client. It turns false
    /// only when bluetoothd has no discovery client left (a kernel that interrupts the scan for a connection
    /// leaves it true, and bluetoothd resumes the scan by itself).
    case discovering(ObjectPath, Bool)
}

extension Adapter1 {
    /// The adapter's properties from the mirror (no bus traffic).
    /// - Throws: ``BlueZError`` `.unavailable(.noAdapter)` when the adapter is gone.
    public func properties() async throws(BlueZError) -> Properties {
        guard let props = await bluez.adapterProperties(path) else {
            throw BlueZError(.unavailable(.noAdapter), "adapter \(path) is gone")
        }
        return props
    }

    /// Powers the adapter on (or off) and waits until `Powered` says so.
    public func setPowered(_ on: Bool, timeout: Duration = .seconds(5)) async throws(BlueZError) {
        if (try? await properties().powered) == on { return }
        try await bluez.setProperty(path, BlueZNames.adapter1, "Powered", .boolean(on))
        let path = self.path
        try await bluez.wait(timeout: timeout, "\(name) Powered=\(on)") { tree in
            PropertyBag(tree.properties(path, BlueZNames.adapter1) ?? [:]).bool("Powered") == on
        }
    }

    /// Reads the LEAdvertisingManager1 counters fresh from bluetoothd (the mirror follows PropertiesChanged too).
    public func advertisingInstances() async throws(BlueZError) -> (supported: Int, active: Int) {
        let supported = try await bluez.property(path, BlueZNames.leAdvertisingManager1, "SupportedInstances",
                                                 as: UInt8.self)
        let active = try await bluez.property(path, BlueZNames.leAdvertisingManager1, "ActiveInstances", as: UInt8.self)
        return (Int(supported), Int(active))
    }
}
