import DBus
import Foundation

/// The per-characteristic state of an exported GATT application that changes while it runs.
struct GattServerState: Sendable {
    struct CharacteristicState: Sendable {
        var uuid: BluetoothUUID
        var serviceUUID: BluetoothUUID
        var notifying = false
        /// The ATT MTU bluetoothd last told us (in a ReadValue/WriteValue/Acquire option); 23 until then.
        var mtu = 23
    }

    var characteristics: [ObjectPath: CharacteristicState] = [:]

    func path(of uuid: BluetoothUUID, service: BluetoothUUID?) -> ObjectPath? {
        characteristics.first { $0.value.uuid == uuid && (service == nil || $0.value.serviceUUID == service) }?.key
    }
}
