import DBus
import FoundationEssentials
import HandoffShared

/// `org.bluez.LEAdvertisingManager1` (doc/org.bluez.LEAdvertisingManager.rst): registering advertisements.
extension BlueZ {
    /// Exports `advertisement` under `/org/handoff/adv<N>` and registers it on `adapter`.
    ///
    /// The registration survives bluetoothd restarts: it is registered again when bluetoothd returns.
    /// - Throws: ``BlueZError`` `.invalidLength` when the data does not fit (31 bytes legacy, see
    ///   ``Adapter1/Properties/maxAdvertisingLength``), `.notPermitted` when no advertising instance is left,
    ///   `.failed` ("Failed to parse advertisement") for a field bluetoothd cannot encode at all.
    public func register(_ advertisement: LEAdvertisement, on adapter: Adapter1) async throws(BlueZError)
        -> AdvertisementRegistration
    {
        try advertisement.validate()
        let path = try exportPath("adv")
        let box = Locked(advertisement)
        try await exportAdvertisement(box, at: path)
        var registration = Registration(kind: .advertisement, path: path, adapterName: adapter.name, active: false,
                                        advertisement: box)
        do {
            try await registerWithBlueZ(registration)
        } catch {
            _ = try? connection.unexport(path)
            throw Self.explainAdvertisingError(
                error, advertisement: advertisement, adapter: adapterProperties(adapter.path))
        }
        registration.active = true
        registration.registeredAt = clock.now
        _ = addRegistration(registration)
        return AdvertisementRegistration(path: path, adapter: adapter, bluez: self, box: box)
    }

    /// Makes bluetoothd's registration errors say what is wrong. bluetoothd 5.66 with extended advertising
    /// answers data that is too long with `Failed` ("Failed to register advertisement"), not InvalidLength; when
    /// the advertisement needs more than the adapter's limit (MaxAdvLen, else 31), that becomes `.invalidLength`.
    static func explainAdvertisingError(
        _ error: BlueZError, advertisement: LEAdvertisement? = nil, adapter: Adapter1.Properties? = nil
    ) -> BlueZError {
        if error.code == .failed, let advertisement {
            let limit = Int(adapter?.maxAdvertisingLength ?? 31)
            if advertisement.estimatedLength > limit {
                return BlueZError(
                    .invalidLength,
                    "the advertisement needs about \(advertisement.estimatedLength) bytes; the adapter takes \(limit) "
                        + "(bluetoothd: \(error.message))", name: error.name, cause: error.cause)
            }
        }
        switch error.code {
        case .invalidLength:
            return BlueZError(
                .invalidLength, "the advertisement does not fit in the advertising data (\(error.message))",
                       name: error.name, cause: error.cause)
        case .notPermitted:
            return BlueZError(.notPermitted, "no advertising instance left on the adapter (\(error.message))",
                       name: error.name, cause: error.cause)
        default:
            return error
        }
    }

    /// A fresh path under ``BlueZNames/exportRoot`` for one of our objects.
    func exportPath(_ kind: String) throws(BlueZError) -> ObjectPath {
        let text = "\(BlueZNames.exportRoot)/\(kind)\(makeID())"
        guard let path = ObjectPath(rawValue: text) else { throw BlueZError(.invalidInput, "bad path \(text)") }
        return path
    }

    func exportAdvertisement(_ box: Locked<LEAdvertisement>, at path: ObjectPath) async throws(BlueZError) {
        var interface = ExportedInterface(BlueZNames.leAdvertisement1)
        for (name, value) in box.value.properties.sorted(by: { $0.key < $1.key }) {
            interface.property(
                MemberName(stringLiteral: name), type: value.type,
                get: { box.value.properties[name]?.value ?? value.value })
        }
        interface.method("Release", noReply: true) { [weak self] _ in
            await self?.markReleased(path)
            return []
        }
        do {
            try await connection.export([interface], at: path)
        } catch {
            throw BlueZError(.bus, "cannot export the advertisement: \(error.message)", cause: error)
        }
    }

    /// Unregisters (when still registered) and unexports.
    func unregisterAdvertisement(_ path: ObjectPath, adapterName: String) async {
        if let registration = removeRegistration(path), registration.active,
           let adapter = try? adapterPath(adapterName, needing: BlueZNames.leAdvertisingManager1)
        {
            _ = try? await call(
                adapter, BlueZNames.leAdvertisingManager1, "UnregisterAdvertisement", [.objectPath(path)])
        }
        _ = try? connection.unexport(path)
    }
}

/// A registered advertisement: update it, or cancel it to stop advertising.
public struct AdvertisementRegistration: Sendable {
    /// Our exported LEAdvertisement1 object.
    public let path: ObjectPath
    /// The adapter it advertises on.
    public let adapter: Adapter1
    let bluez: BlueZ
    let box: Locked<LEAdvertisement>

    /// How an update reaches bluetoothd.
    public struct UpdateMethod: Sendable, Equatable {
        let reregister: Bool
        /// Emit PropertiesChanged for the changed properties; bluetoothd 5.66 re-reads them and updates the
        /// advertising data in place (measured in the VM tier; see Docs/bluez-api.md).
        public static let propertiesChanged = UpdateMethod(reregister: false)
        /// UnregisterAdvertisement + RegisterAdvertisement.
        public static let reregister = UpdateMethod(reregister: true)
    }

    /// The advertisement as currently exported.
    public var advertisement: LEAdvertisement { box.value }

    /// Changes what is advertised. When the set of exported properties changes (a field appears or goes away),
    /// the object is re-exported and re-registered whatever `method` says.
    public func update(_ advertisement: LEAdvertisement, method: UpdateMethod = .propertiesChanged)
        async throws(BlueZError)
    {
        try advertisement.validate()
        let old = box.value.properties
        let new = advertisement.properties
        box.withLock { $0 = advertisement }
        if Set(old.keys) != Set(new.keys) || old.mapValues(\.type) != new.mapValues(\.type) {
            try await bluez.reexportAdvertisement(path, box: box, adapterName: adapter.name)
            return
        }
        if method.reregister {
            try await bluez.reregisterAdvertisement(path, adapterName: adapter.name)
            return
        }
        let changed = new.filter { old[$0.key] != $0.value }
        guard !changed.isEmpty else { return }
        do {
            try bluez.connection.emitPropertiesChanged(
                path: path, interface: BlueZNames.leAdvertisement1, changed: changed)
        } catch {
            throw BlueZError(.bus, "cannot emit PropertiesChanged: \(error.message)", cause: error)
        }
    }

    /// Hands the advertisement to bluetoothd again, unchanged: emits PropertiesChanged for its data fields
    /// (ManufacturerData, ServiceData, Data) with their current values, which bluetoothd answers by giving the kernel
    /// the advertising data again, and the kernel by enabling the advertising set. What it is for: when a central
    /// connects, the controller ends the connectable advertising set it connected through, and Linux 6.1 enables
    /// that set again only when the connection ends (measured on Debian 12: no LE Set Extended Advertising Enable
    /// between the connection and its end, 70 s in one case), so the machine is neither heard nor connectable
    /// meanwhile. Unregistering and registering again would do it too, but a controller that refuses to advertise
    /// beside a connection would then hold no advertisement at all, where this leaves the kernel's set in place.
    /// Nothing is emitted for an advertisement without data fields.
    public func refresh() throws(BlueZError) {
        let data = advertisement.properties.filter { ["ManufacturerData", "ServiceData", "Data"].contains($0.key) }
        guard !data.isEmpty else { return }
        do {
            try bluez.connection.emitPropertiesChanged(path: path, interface: BlueZNames.leAdvertisement1, changed: data)
        } catch {
            throw BlueZError(.bus, "cannot emit PropertiesChanged: \(error.message)", cause: error)
        }
    }

    /// Stops advertising: unregisters and unexports the object. Calling it again does nothing.
    public func cancel() async {
        await bluez.unregisterAdvertisement(path, adapterName: adapter.name)
    }

    /// Whether bluetoothd currently has it registered (false while bluetoothd is away, or after Release).
    public func isActive() async -> Bool {
        await bluez.registrationState(path)?.active ?? false
    }
}

extension BlueZ {
    func reregisterAdvertisement(_ path: ObjectPath, adapterName: String) async throws(BlueZError) {
        let (id, registration) = try await withdrawAdvertisement(path, adapterName: adapterName)
        try await registerAgain(id, registration)
    }

    func reexportAdvertisement(_ path: ObjectPath, box: Locked<LEAdvertisement>, adapterName: String)
        async throws(BlueZError)
    {
        let (id, registration) = try await withdrawAdvertisement(path, adapterName: adapterName)
        _ = try? connection.unexport(path)
        try await exportAdvertisement(box, at: path)
        try await registerAgain(id, registration)
    }

    /// The registration of `path`, unregistered from bluetoothd if it was active (best effort) and marked inactive.
    private func withdrawAdvertisement(_ path: ObjectPath, adapterName: String)
        async throws(BlueZError) -> (UInt64, Registration)
    {
        guard let id = registrations.first(where: { $0.value.path == path })?.key,
              let registration = registrations[id] else {
            throw BlueZError(.doesNotExist, "advertisement \(path) is not registered")
        }
        if registration.active, let adapter = try? adapterPath(adapterName, needing: BlueZNames.leAdvertisingManager1) {
            _ = try? await call(
                adapter, BlueZNames.leAdvertisingManager1, "UnregisterAdvertisement", [.objectPath(path)])
        }
        registrations[id]?.active = false
        return (id, registration)
    }

    /// Registers a withdrawn advertisement with bluetoothd again and marks it active.
    private func registerAgain(_ id: UInt64, _ registration: Registration) async throws(BlueZError) {
        do {
            try await registerWithBlueZ(registration)
        } catch {
            throw Self.explainAdvertisingError(error)
        }
        registrations[id]?.active = true
        registrations[id]?.registeredAt = clock.now
    }
}
