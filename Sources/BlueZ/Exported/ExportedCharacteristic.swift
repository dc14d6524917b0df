import DBus
import FoundationEssentials
import HandoffShared

/// One characteristic of a registered GATT application, as BlueZ's `example-gatt-server` has it: the object owns
/// its path, the state bluetoothd changes while it runs (subscribed or not, the ATT MTU last reported) and its
/// `org.bluez.GattCharacteristic1` methods.
final class ExportedCharacteristic: Sendable {
    let path: ObjectPath
    let uuid: BluetoothUUID
    let serviceUUID: BluetoothUUID
    private let servicePath: ObjectPath
    private let definition: GattApplication.Characteristic
    private let connection: Connection
    private let state = Locked(State())

    private struct State {
        var notifying = false
        /// The ATT MTU bluetoothd last told us (in a ReadValue/WriteValue/Acquire option); 23 until then.
        var mtu = 23
    }

    init(_ definition: GattApplication.Characteristic, path: ObjectPath, service: ObjectPath,
         serviceUUID: BluetoothUUID, connection: Connection) {
        self.definition = definition
        self.path = path
        self.uuid = definition.uuid
        self.servicePath = service
        self.serviceUUID = serviceUUID
        self.connection = connection
    }

    /// Whether a client is subscribed: bluetoothd called StartNotify and not StopNotify since.
    var isNotifying: Bool { state.value.notifying }
    /// The ATT MTU bluetoothd last reported for the connection of a request (23 until one carried it).
    var mtu: Int { state.value.mtu }

    private var canNotify: Bool { !definition.flags.isDisjoint(with: GattFlag.notifyFamily) }

    /// The `GattCharacteristic1` interface bluetoothd reads and calls.
    var interface: ExportedInterface {
        var interface = ExportedInterface(
            BlueZNames.gattCharacteristic1, callOrder: .serial)
        let uuid = self.uuid.string
        let service = servicePath
        let flags = definition.flags.map(\.rawValue).sorted()
        interface.property("UUID", get: { uuid })
        interface.property("Service", get: { service })
        interface.property("Flags", get: { flags })
        if canNotify {
            interface.property("Notifying", get: { [state] in state.value.notifying })
        }
        interface.gattValueMethods(onRead: definition.onRead, onWrite: definition.onWrite) { [state] request in
            if let mtu = request.mtu { state.withLock { $0.mtu = mtu } }
        }
        interface.method("StartNotify") { [self] _ in try await setNotifying(true) }
        interface.method("StopNotify") { [self] _ in try await setNotifying(false) }
        interface.method("Confirm", noReply: true) { _ in [] }
        return interface
    }

    /// Sends `value` as a notification: PropertiesChanged on `Value`, which bluetoothd forwards to every client
    /// whose CCC is enabled.
    /// - Returns: whether a StartNotify is on record.
    func notify(_ value: Data) throws(BlueZError) -> Bool {
        do {
            try connection.emitPropertiesChanged(
                path: path, interface: BlueZNames.gattCharacteristic1,
                changed: ["Value": Variant([UInt8](value))])
        } catch {
            throw BlueZError(.bus, "cannot send the notification: \(error.message)", cause: error)
        }
        return isNotifying
    }

    /// StartNotify (`on`) or StopNotify: records it, and on a change says so in PropertiesChanged and tells
    /// the application's `onSubscribe`.
    private func setNotifying(_ on: Bool) async throws -> [Value] {
        guard canNotify else { throw GattRefusal.unsupported("notify") }
        let changed = state.withLock { state -> Bool in
            defer { state.notifying = on }
            return state.notifying != on
        }
        if changed {
            try? connection.emitPropertiesChanged(
                path: path, interface: BlueZNames.gattCharacteristic1,
                changed: ["Notifying": Variant(on)])
            await definition.onSubscribe?(on)
        }
        return []
    }
}

extension ExportedInterface {
    /// `ReadValue(a{sv} options) → ay` and `WriteValue(ay value, a{sv} options)` of a characteristic or
    /// descriptor: each request goes to `noting` first (nil for none), then to the handler; an attribute without
    /// the handler refuses with `NotSupported`, and a handler's ``BlueZError`` becomes the reply bluetoothd maps
    /// to an ATT error.
    mutating func gattValueMethods(onRead: GattReadHandler?, onWrite: GattWriteHandler?,
                                   noting: (@Sendable (GattRequest) -> Void)? = nil) {
        method("ReadValue", in: "a{sv}", out: "ay", inputNames: ["options"], outputNames: ["value"]) { call in
            let request = GattRequest(options: (try? call.argument(0, as: [String: Variant].self)) ?? [:])
            noting?(request)
            guard let onRead else { throw GattRefusal.unsupported("read") }
            return [.bytes([UInt8](try await GattRefusal.answering { try await onRead(request) }))]
        }
        method("WriteValue", in: "aya{sv}", inputNames: ["value", "options"]) { call in
            let value = Data(try call.argument(0, as: [UInt8].self))
            let request = GattRequest(options: (try? call.argument(1, as: [String: Variant].self)) ?? [:])
            noting?(request)
            guard let onWrite else { throw GattRefusal.unsupported("write") }
            try await GattRefusal.answering { try await onWrite(value, request) }
            return []
        }
    }
}

/// The error replies of exported GATT attributes.
enum GattRefusal {
    /// The refusal for an operation the attribute has no handler for (refuse by default).
    static func unsupported(_ operation: String) -> DBusError {
        DBusError(name: BlueZNames.error("NotSupported"),
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
            throw DBusError(name: BlueZNames.failed,
                            message: String(describing: error))
        }
    }
}
