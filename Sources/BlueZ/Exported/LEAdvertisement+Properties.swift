import DBus
import FoundationEssentials

extension LEAdvertisement {
    /// The `org.bluez.LEAdvertisement1` properties; absent values are left out, so BlueZ does not advertise them.
    public var properties: [String: Variant] {
        var result: [String: Variant] = ["Type": Variant(type.rawValue)]
        if !serviceUUIDs.isEmpty { result["ServiceUUIDs"] = Variant(serviceUUIDs.map(\.string)) }
        if !manufacturerData.isEmpty {
            let dict: [UInt16: Variant] = manufacturerData.mapValues { Variant([UInt8]($0)) }
            result["ManufacturerData"] = Variant(dict)
        }
        if !serviceData.isEmpty {
            var dict: [String: Variant] = [:]
            for (uuid, data) in serviceData { dict[uuid.string] = Variant([UInt8](data)) }
            result["ServiceData"] = Variant(dict)
        }
        if !includes.isEmpty { result["Includes"] = Variant(includes) }
        if let localName { result["LocalName"] = Variant(localName) }
        if let discoverable { result["Discoverable"] = Variant(discoverable) }
        if let minInterval { result["MinInterval"] = Variant(minInterval) }
        if let maxInterval { result["MaxInterval"] = Variant(maxInterval) }
        if let timeout { result["Timeout"] = Variant(timeout) }
        if let duration { result["Duration"] = Variant(duration) }
        return result
    }
}
