import DBus
import Foundation
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
        let state = Locked(GattServerState())
        var exported: [ObjectPath] = []
        do {
            try await connection.export([], at: root, objectManager: true)
            exported.append(root)
            for (s, service) in application.services.enumerated() {
                let servicePath = try root.appending("service\(s)")
                try await connection.export([Self.serviceInterface(service)], at: servicePath)
                exported.append(servicePath)
                for (c, characteristic) in service.characteristics.enumerated() {
                    let charPath = try servicePath.appending("char\(c)")
                    state.withLock {
                        $0.characteristics[charPath] = .init(uuid: characteristic.uuid, serviceUUID: service.uuid)
                    }
                    let interface = characteristicInterface(characteristic, path: charPath, service: servicePath,
                                                            state: state)
                    try await connection.export([interface], at: charPath)
                    exported.append(charPath)
                    for (d, descriptor) in characteristic.descriptors.enumerated() {
                        let descPath = try charPath.appending("desc\(d)")
                        try await connection.export([Self.descriptorInterface(descriptor, characteristic: charPath)],
                                                    at: descPath)
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
        registration.registeredAt = .now
        _ = addRegistration(registration)
        return GattRegistration(root: root, adapter: adapter, exported: exported, bluez: self, state: state)
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
        var interface = ExportedInterface(InterfaceName(stringLiteral: BlueZNames.gattService1))
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
            InterfaceName(stringLiteral: BlueZNames.gattDescriptor1), callOrder: .serial)
        let uuid = descriptor.uuid.string
        let flags = descriptor.flags.map(\.rawValue).sorted()
        interface.property("UUID", get: { uuid })
        interface.property("Characteristic", get: { characteristic })
        interface.property("Flags", get: { flags })
        let onRead = descriptor.onRead
        let onWrite = descriptor.onWrite
        interface.method("ReadValue", in: "a{sv}", out: "ay", inputNames: ["options"], outputNames: ["value"]) { call in
            guard let onRead else { throw Self.refusal("read") }
            let request = GattRequest(options: (try? call.argument(0, as: [String: Variant].self)) ?? [:])
            return [.bytes([UInt8](try await Self.answering { try await onRead(request) }))]
        }
        interface.method("WriteValue", in: "aya{sv}", inputNames: ["value", "options"]) { call in
            guard let onWrite else { throw Self.refusal("write") }
            let value = Data(try call.argument(0, as: [UInt8].self))
            let request = GattRequest(options: (try? call.argument(1, as: [String: Variant].self)) ?? [:])
            try await Self.answering { try await onWrite(value, request) }
            return []
        }
        return interface
    }

    func characteristicInterface(
        _ characteristic: GattApplication.Characteristic, path: ObjectPath, service: ObjectPath,
        state: Locked<GattServerState>
    ) -> ExportedInterface {
        var interface = ExportedInterface(
            InterfaceName(stringLiteral: BlueZNames.gattCharacteristic1), callOrder: .serial)
        let uuid = characteristic.uuid.string
        let flags = characteristic.flags.map(\.rawValue).sorted()
        let canNotify = !characteristic.flags.isDisjoint(with: GattFlag.notifyFamily)
        interface.property("UUID", get: { uuid })
        interface.property("Service", get: { service })
        interface.property("Flags", get: { flags })
        if canNotify {
            interface.property("Notifying", get: { state.value.characteristics[path]?.notifying ?? false })
        }
        let onRead = characteristic.onRead
        let onWrite = characteristic.onWrite
        let onSubscribe = characteristic.onSubscribe
        let noteMTU: @Sendable (GattRequest) -> Void = { request in
            if let mtu = request.mtu { state.withLock { $0.characteristics[path]?.mtu = mtu } }
        }
        interface.method("ReadValue", in: "a{sv}", out: "ay", inputNames: ["options"], outputNames: ["value"]) { call in
            let request = GattRequest(options: (try? call.argument(0, as: [String: Variant].self)) ?? [:])
            noteMTU(request)
            guard let onRead else { throw Self.refusal("read") }
            return [.bytes([UInt8](try await Self.answering { try await onRead(request) }))]
        }
        interface.method("WriteValue", in: "aya{sv}", inputNames: ["value", "options"]) { call in
            let value = Data(try call.argument(0, as: [UInt8].self))
            let request = GattRequest(options: (try? call.argument(1, as: [String: Variant].self)) ?? [:])
            noteMTU(request)
            guard let onWrite else { throw Self.refusal("write") }
            try await Self.answering { try await onWrite(value, request) }
            return []
        }
        let connection = self.connection
        interface.method("StartNotify") { _ in
            guard canNotify else { throw Self.refusal("notify") }
            let changed = state.withLock { box -> Bool in
                defer { box.characteristics[path]?.notifying = true }
                return box.characteristics[path]?.notifying == false
            }
            if changed {
                try? connection.emitPropertiesChanged(
                    path: path, interface: InterfaceName(stringLiteral: BlueZNames.gattCharacteristic1),
                    changed: ["Notifying": Variant(true)])
                await onSubscribe?(true)
            }
            return []
        }
        interface.method("StopNotify") { _ in
            guard canNotify else { throw Self.refusal("notify") }
            let changed = state.withLock { box -> Bool in
                defer { box.characteristics[path]?.notifying = false }
                return box.characteristics[path]?.notifying == true
            }
            if changed {
                try? connection.emitPropertiesChanged(
                    path: path, interface: InterfaceName(stringLiteral: BlueZNames.gattCharacteristic1),
                    changed: ["Notifying": Variant(false)])
                await onSubscribe?(false)
            }
            return []
        }
        interface.method("Confirm", noReply: true) { _ in [] }
        return interface
    }

    /// The refusal for an operation we have no handler for (refuse by default).
    static func refusal(_ operation: String) -> DBusError {
        DBusError(name: ErrorName(stringLiteral: BlueZNames.errorPrefix + "NotSupported"),
                  message: "\(operation) is not supported by this attribute")
    }

    /// Runs a handler, turning a thrown ``BlueZError`` into the BlueZ error reply bluetoothd maps to ATT.
    static func answering<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as BlueZError {
            throw error.dbusReply
        } catch let error as DBusError {
            throw error
        } catch {
            throw DBusError(name: ErrorName(stringLiteral: BlueZNames.errorPrefix + "Failed"),
                            message: String(describing: error))
        }
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
    let state: Locked<GattServerState>

    /// Sends `value` as a notification (PropertiesChanged on `Value`) of the characteristic `uuid`; bluetoothd
    /// forwards it to every client whose CCC is enabled (it keeps that state per device). Values above 512 bytes
    /// are truncated by bluetoothd: use ``notifyChunked(_:value:mtu:)``.
    ///
    /// The signal is emitted even when we have not seen StartNotify: with a client that subscribed through
    /// AcquireNotify, bluetoothd 5.66 did not call our StartNotify in the VM tier, yet delivers the notifications.
    /// - Returns: whether a StartNotify is on record for the characteristic.
    @discardableResult
    public func notify(_ uuid: BluetoothUUID, value: Data, service: BluetoothUUID? = nil) throws(BlueZError) -> Bool {
        let snapshot = state.value
        guard let path = snapshot.path(of: uuid, service: service) else {
            throw BlueZError(.invalidInput, "the application has no characteristic \(uuid)")
        }
        do {
            try bluez.connection.emitPropertiesChanged(
                path: path, interface: InterfaceName(stringLiteral: BlueZNames.gattCharacteristic1),
                changed: ["Value": Variant([UInt8](value))])
        } catch {
            throw BlueZError(.bus, "cannot send the notification: \(error.message)", cause: error)
        }
        return snapshot.characteristics[path]?.notifying == true
    }

    /// Sends a value of any size as ``ChunkedValue`` chunks sized for the MTU bluetoothd last reported.
    /// - Returns: the number of notifications sent.
    @discardableResult
    public func notifyChunked(_ uuid: BluetoothUUID, value: Data, mtu: Int? = nil) async throws(BlueZError) -> Int {
        let snapshot = state.value
        guard let path = snapshot.path(of: uuid, service: nil) else {
            throw BlueZError(.invalidInput, "the application has no characteristic \(uuid)")
        }
        let size = ChunkedValue.chunkSize(mtu: mtu ?? snapshot.characteristics[path]?.mtu ?? 23)
        var sent = 0
        for chunk in ChunkedValue.chunks(of: value, chunkSize: size) {
            try notify(uuid, value: chunk)
            sent += 1
            if sent % 16 == 0 { await Task.yield() }
        }
        return sent
    }

    /// Whether a client is subscribed to `uuid`.
    public func isNotifying(_ uuid: BluetoothUUID) -> Bool {
        let snapshot = state.value
        return snapshot.path(of: uuid, service: nil).flatMap { snapshot.characteristics[$0]?.notifying } ?? false
    }

    /// The ATT MTU bluetoothd last reported for `uuid`'s connection (23 until a request carried one).
    public func mtu(of uuid: BluetoothUUID) -> Int {
        let snapshot = state.value
        return snapshot.path(of: uuid, service: nil).flatMap { snapshot.characteristics[$0]?.mtu } ?? 23
    }

    /// Whether bluetoothd currently has the application registered.
    public func isActive() async -> Bool {
        await bluez.registrationState(root)?.active ?? false
    }

    /// Unregisters and unexports the application. Calling it again does nothing.
    public func cancel() async {
        await bluez.unregisterApplication(root, exported: exported, adapterName: adapter.name)
    }
}
