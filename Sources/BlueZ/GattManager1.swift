import DBus
import FoundationEssentials
import HandoffShared

/// `org.bluez.GattManager1` (doc/org.bluez.GattManager.rst): exporting and registering a GATT application.
extension BlueZ {
    /// Exports `application` under `/org/handoff/app<N>` (an ObjectManager at the root, then `service0`,
    /// `service0/char0`, `service0/char0/desc0`) and registers it on `adapter`.
    ///
    /// The registration survives bluetoothd restarts: it is registered again when bluetoothd returns.
    public func register(_ application: GattApplication, on adapter: Adapter1) async throws(BlueZError)
        -> GattRegistration
    {
        let root = try exportPath("app")
        var characteristics: [ExportedCharacteristic] = []
        var exported: [ObjectPath] = []
        do {
            try await connection.export([], at: root, objectManager: true)
            exported.append(root)
            for (s, service) in application.services.enumerated() {
                let servicePath = try root.appending("service\(s)")
                try await connection.export([Self.serviceInterface(service)], at: servicePath)
                exported.append(servicePath)
                for (c, definition) in service.characteristics.enumerated() {
                    let characteristic = ExportedCharacteristic(
                        definition, path: try servicePath.appending("char\(c)"), service: servicePath,
                        serviceUUID: service.uuid, connection: connection)
                    characteristics.append(characteristic)
                    try await connection.export([characteristic.interface], at: characteristic.path)
                    exported.append(characteristic.path)
                    for (d, descriptor) in definition.descriptors.enumerated() {
                        let descPath = try characteristic.path.appending("desc\(d)")
                        try await connection.export(
                            [Self.descriptorInterface(descriptor, characteristic: characteristic.path)], at: descPath)
                        exported.append(descPath)
                    }
                }
            }
        } catch {
            for path in exported.reversed() { _ = try? connection.unexport(path) }
            throw BlueZError(.bus, "cannot export the GATT application: \(error.message)", cause: error)
        }
        var registration = Registration(kind: .application, path: root, adapterName: adapter.name, active: false)
        do {
            try await registerWithBlueZ(registration)
        } catch {
            for path in exported.reversed() { _ = try? connection.unexport(path) }
            throw error
        }
        registration.active = true
        registration.registeredAt = clock.now
        _ = addRegistration(registration)
        return GattRegistration(root: root, adapter: adapter, exported: exported, bluez: self,
                                characteristics: characteristics)
    }

    func unregisterApplication(_ root: ObjectPath, exported: [ObjectPath], adapterName: String) async {
        if let registration = removeRegistration(root), registration.active,
           let adapter = try? adapterPath(adapterName, needing: BlueZNames.gattManager1)
        {
            _ = try? await call(adapter, BlueZNames.gattManager1, "UnregisterApplication", [.objectPath(root)])
        }
        for path in exported.reversed() { _ = try? connection.unexport(path) }
    }

    static func serviceInterface(_ service: GattApplication.Service) -> ExportedInterface {
        var interface = ExportedInterface(BlueZNames.gattService1)
        let uuid = service.uuid.string
        let primary = service.primary
        interface.property("UUID", get: { uuid })
        interface.property("Primary", get: { primary })
        return interface
    }

    static func descriptorInterface(_ descriptor: GattApplication.Descriptor, characteristic: ObjectPath)
        -> ExportedInterface
    {
        var interface = ExportedInterface(
            BlueZNames.gattDescriptor1, callOrder: .serial)
        let uuid = descriptor.uuid.string
        let flags = descriptor.flags.map(\.rawValue).sorted()
        interface.property("UUID", get: { uuid })
        interface.property("Characteristic", get: { characteristic })
        interface.property("Flags", get: { flags })
        interface.gattValueMethods(onRead: descriptor.onRead, onWrite: descriptor.onWrite)
        return interface
    }
}

/// A registered GATT application: send notifications, or cancel to take it off the air.
public struct GattRegistration: Sendable {
    /// The application root (the ObjectManager bluetoothd reads).
    public let root: ObjectPath
    /// The adapter it is registered on.
    public let adapter: Adapter1
    let exported: [ObjectPath]
    let bluez: BlueZ
    let characteristics: [ExportedCharacteristic]

    /// Sends `value` as a notification (PropertiesChanged on `Value`) of the characteristic `uuid`; bluetoothd
    /// forwards it to every client whose CCC is enabled (it keeps that state per device). Values above 512 bytes
    /// are truncated by bluetoothd: use ``notifyChunked(_:value:mtu:)``.
    ///
    /// The signal is emitted even when we have not seen StartNotify: with a client that subscribed through
    /// AcquireNotify, bluetoothd 5.66 did not call our StartNotify in the VM tier, yet delivers the notifications.
    /// - Returns: whether a StartNotify is on record for the characteristic.
    @discardableResult
    public func notify(_ uuid: BluetoothUUID, value: Data, service: BluetoothUUID? = nil) throws(BlueZError) -> Bool {
        try characteristic(uuid, service: service).notify(value)
    }

    /// Sends a value of any size as ``ChunkedValue`` chunks sized for the MTU bluetoothd last reported.
    /// - Returns: the number of notifications sent.
    @discardableResult
    public func notifyChunked(_ uuid: BluetoothUUID, value: Data, mtu: Int? = nil) async throws(BlueZError) -> Int {
        let characteristic = try characteristic(uuid)
        let size = ChunkedValue.chunkSize(mtu: mtu ?? characteristic.mtu)
        var sent = 0
        for chunk in ChunkedValue.chunks(of: value, chunkSize: size) {
            _ = try characteristic.notify(chunk)
            sent += 1
            if sent % 16 == 0 { await Task.yield() }
        }
        return sent
    }

    /// Whether a client is subscribed to `uuid`.
    public func isNotifying(_ uuid: BluetoothUUID) -> Bool {
        (try? characteristic(uuid).isNotifying) ?? false
    }

    /// The ATT MTU bluetoothd last reported for `uuid`'s connection (23 until a request carried one).
    public func mtu(of uuid: BluetoothUUID) -> Int {
        (try? characteristic(uuid).mtu) ?? 23
    }

    /// Whether bluetoothd currently has the application registered.
    public func isActive() async -> Bool {
        await bluez.registrationState(root)?.active ?? false
    }

    /// The exported characteristic `uuid` (of the service `service`, when given).
    private func characteristic(_ uuid: BluetoothUUID, service: BluetoothUUID? = nil) throws(BlueZError)
        -> ExportedCharacteristic {
        guard let found = characteristics.first(where: { $0.uuid == uuid && (service == nil || $0.serviceUUID == service) })
        else { throw BlueZError(.invalidInput, "the application has no characteristic \(uuid)") }
        return found
    }

    /// Unregisters and unexports the application. Calling it again does nothing.
    public func cancel() async {
        await bluez.unregisterApplication(root, exported: exported, adapterName: adapter.name)
    }
}
