import BlueZ
import DBus

/// Questions asked of bluetoothd directly, for the moments when the BlueZ layer's mirror may lag: it applies
/// PropertiesChanged on its own task, so a method reply can overtake the signal that preceded it.
extension BlueZ {
    /// `Device1.Connected` of `path` as bluetoothd says now; nil when the device or bluetoothd is gone.
    func connectedNow(_ path: ObjectPath) async -> Bool? {
        await deviceFlagNow(path, "Connected")
    }

    /// A boolean `Device1` property (`Connected`, `ServicesResolved`) of `path` as bluetoothd says now.
    func deviceFlagNow(_ path: ObjectPath, _ name: String) async -> Bool? {
        let reply = try? await connection.call(
            destination: BusName(stringLiteral: BlueZNames.service), path: path,
            interface: InterfaceName(stringLiteral: BlueZNames.properties), member: "Get",
            arguments: [.string(BlueZNames.device1), .string(name)], timeout: .seconds(5))
        guard let first = reply?.first, case .variant(let variant) = first else { return nil }
        return try? variant.get(Bool.self)
    }

    /// A string property of `interface` on `path` as bluetoothd says now (e.g. `Adapter1.AddressType`, which the
    /// mirror's typed properties do not carry); nil when it is absent.
    func stringNow(_ path: ObjectPath, _ interface: String, _ name: String) async -> String? {
        let reply = try? await connection.call(
            destination: BusName(stringLiteral: BlueZNames.service), path: path,
            interface: InterfaceName(stringLiteral: BlueZNames.properties), member: "Get",
            arguments: [.string(interface), .string(name)], timeout: .seconds(5))
        guard let first = reply?.first, case .variant(let variant) = first else { return nil }
        return try? variant.get(String.self)
    }
}
