import DBus
import FoundationEssentials

/// Lenient typed reads from a BlueZ property dictionary (`a{sv}`): a missing or ill-typed property reads as nil,
/// because BlueZ omits properties it does not know yet and versions differ.
struct PropertyBag: Sendable {
    let raw: [String: Variant]

    init(_ raw: [String: Variant]) { self.raw = raw }

    func get<T: DBusRepresentable>(_ key: String, as type: T.Type = T.self) -> T? {
        guard let variant = raw[key] else { return nil }
        return try? variant.get(T.self)
    }

    func string(_ key: String) -> String? { get(key) }
    func bool(_ key: String) -> Bool? { get(key) }
    func path(_ key: String) -> ObjectPath? { get(key) }
    func strings(_ key: String) -> [String] { get(key) ?? [] }
    func uuids(_ key: String) -> [BluetoothUUID] { strings(key).compactMap(BluetoothUUID.init) }
    func bytes(_ key: String) -> Data? { get(key, as: [UInt8].self).map { Data($0) } }

    /// `a{qv}` with `ay` values (ManufacturerData).
    func manufacturerData(_ key: String) -> [UInt16: Data] {
        guard let dict: [UInt16: Variant] = get(key) else { return [:] }
        var result: [UInt16: Data] = [:]
        for (id, variant) in dict {
            if let bytes = try? variant.get([UInt8].self) { result[id] = Data(bytes) }
        }
        return result
    }

    /// `a{sv}` with `ay` values keyed by UUID (ServiceData).
    func serviceData(_ key: String) -> [BluetoothUUID: Data] {
        guard let dict: [String: Variant] = get(key) else { return [:] }
        var result: [BluetoothUUID: Data] = [:]
        for (text, variant) in dict {
            if let uuid = BluetoothUUID(text), let bytes = try? variant.get([UInt8].self) {
                result[uuid] = Data(bytes)
            }
        }
        return result
    }

    /// An integer property of any D-Bus integer width (BlueZ's a{sv} capability maps vary by version).
    func integer(_ key: String) -> Int? {
        switch raw[key]?.value {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        default: nil
        }
    }
}
