import DBus
import FoundationEssentials
import HandoffShared

/// Registering again what bluetoothd forgot when it went away.
extension BlueZ {
    func markRegistrationsLost() {
        for id in registrations.keys { registrations[id]?.active = false }
    }

    /// Registers every lost registration whose adapter (with the needed manager) is back.
    func restoreRegistrations() async {
        guard !resynchronising else {
            restorePending = true
            return
        }
        resynchronising = true
        defer { resynchronising = false }
        repeat {
            restorePending = false
            await restoreOnce()
        } while restorePending
    }

    private func restoreOnce() async {
        for (id, registration) in registrations.sorted(by: { $0.key < $1.key })
        where !registration.active && !registration.released {
            do {
                try await registerWithBlueZ(registration)
                registrations[id]?.active = true
                registrations[id]?.registeredAt = clock.now
                registrations[id]?.restoreCount += 1
                debug("restored \(registration.kind) \(registration.path) on \(registration.adapterName)")
                resendAdvertisingData(of: registration)
            } catch {
                debug("cannot restore \(registration.path) yet: \(error)")
            }
        }
    }

    /// An update made while the restore's RegisterAdvertisement was under way may be lost: bluetoothd reads the
    /// properties while it registers, and ignores a PropertiesChanged that comes before its proxy is ready. So the
    /// current data is sent once more after a restore (a beacon updated right after a bluetoothd restart otherwise
    /// stayed the old one on the air until the next update).
    private func resendAdvertisingData(of registration: Registration) {
        guard let box = registration.advertisement else { return }
        do {
            try connection.emitPropertiesChanged(path: registration.path, interface: BlueZNames.leAdvertisement1,
                                                 changed: box.value.properties)
        } catch {
            debug("cannot send \(registration.path)'s data again after its restore: \(error)")
        }
    }

    /// The Register… call for a registration, on its adapter as it is now in the mirror.
    func registerWithBlueZ(_ registration: Registration) async throws(BlueZError) {
        switch registration.kind {
        case .advertisement:
            let adapter = try adapterPath(registration.adapterName, needing: BlueZNames.leAdvertisingManager1)
            _ = try await call(
                adapter, BlueZNames.leAdvertisingManager1, "RegisterAdvertisement",
                [.objectPath(registration.path), [String: Variant]().dbusValue])
        case .application:
            let adapter = try adapterPath(registration.adapterName, needing: BlueZNames.gattManager1)
            _ = try await call(
                adapter, BlueZNames.gattManager1, "RegisterApplication",
                [.objectPath(registration.path), [String: Variant]().dbusValue], timeout: .seconds(10))
        case .agent(let capability):
            guard owner != nil else { throw BlueZError(.unavailable(.noBlueZ), "bluetoothd is not running") }
            _ = try await call(
                BlueZNames.rootPath, BlueZNames.agentManager1, "RegisterAgent",
                [.objectPath(registration.path), .string(capability)])
            _ = try? await call(
                BlueZNames.rootPath, BlueZNames.agentManager1, "RequestDefaultAgent",
                [.objectPath(registration.path)])
        }
    }

    func adapterPath(_ name: String, needing interface: InterfaceName) throws(BlueZError) -> ObjectPath {
        guard owner != nil else { throw BlueZError(.unavailable(.noBlueZ), "bluetoothd is not running") }
        let named = tree.paths(with: BlueZNames.adapter1).first { $0.elements.last.map(String.init) == name }
        guard let path = named else { throw BlueZError(.unavailable(.noAdapter), "no adapter \(name)") }
        guard tree.properties(path, interface) != nil else {
            throw BlueZError(.unavailable(.noLESupport), "\(name) has no \(interface)")
        }
        return path
    }

    /// Whether a registration is currently registered with bluetoothd, how often it was restored after
    /// bluetoothd came back, and when it was last registered.
    public func registrationState(_ path: ObjectPath)
        -> (active: Bool, restoreCount: Int, registeredAt: HandoffInstant?)?
    {
        registrations.values.first { $0.path == path }.map { ($0.active, $0.restoreCount, $0.registeredAt) }
    }

    func addRegistration(_ registration: Registration) -> UInt64 {
        let id = makeID()
        registrations[id] = registration
        return id
    }

    func removeRegistration(_ path: ObjectPath) -> Registration? {
        guard let id = registrations.first(where: { $0.value.path == path })?.key else { return nil }
        return registrations.removeValue(forKey: id)
    }

    func markReleased(_ path: ObjectPath) {
        guard let id = registrations.first(where: { $0.value.path == path })?.key else { return }
        registrations[id]?.released = true
        registrations[id]?.active = false
    }
}
