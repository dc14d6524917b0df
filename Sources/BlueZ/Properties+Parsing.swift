import DBus
import FoundationEssentials

extension Device1.Properties {
    /// Reads the Device1 interface dictionary; nil when there is no valid Address.
    init?(path: ObjectPath, _ raw: [String: Variant]) {
        let bag = PropertyBag(raw)
        guard let text = bag.string("Address"), let address = BluetoothAddress(text) else { return nil }
        self.init(
            path: path, adapter: bag.path("Adapter"), address: address, addressType: bag.string("AddressType"),
            name: bag.string("Name"), alias: bag.string("Alias"), rssi: bag.get("RSSI"), txPower: bag.get("TxPower"),
            manufacturerData: bag.manufacturerData("ManufacturerData"), serviceData: bag.serviceData("ServiceData"),
            uuids: bag.uuids("UUIDs"), connected: bag.bool("Connected") ?? false,
            servicesResolved: bag.bool("ServicesResolved") ?? false, paired: bag.bool("Paired") ?? false,
            bonded: bag.bool("Bonded") ?? false, trusted: bag.bool("Trusted") ?? false,
            blocked: bag.bool("Blocked") ?? false)
    }
}

extension Adapter1.Properties {
    /// Reads an adapter object's interfaces; nil when it has no Adapter1.
    init?(path: ObjectPath, interfaces: [String: [String: Variant]]) {
        guard let adapter = interfaces[BlueZNames.adapter1.rawValue] else { return nil }
        let bag = PropertyBag(adapter)
        let advertising = interfaces[BlueZNames.leAdvertisingManager1.rawValue].map(PropertyBag.init)
        var maxAdvLen: UInt8?
        if let caps: [String: Variant] = advertising?.get("SupportedCapabilities") {
            maxAdvLen = PropertyBag(caps).integer("MaxAdvLen").flatMap { UInt8(exactly: $0) }
        }
        self.init(
            path: path, address: bag.string("Address").flatMap(BluetoothAddress.init), alias: bag.string("Alias"),
            powered: bag.bool("Powered") ?? false, discovering: bag.bool("Discovering") ?? false,
            canAdvertise: advertising != nil, canServeGatt: interfaces[BlueZNames.gattManager1.rawValue] != nil,
            supportedInstances: advertising?.integer("SupportedInstances").flatMap { UInt8(exactly: $0) },
            activeInstances: advertising?.integer("ActiveInstances").flatMap { UInt8(exactly: $0) },
            supportedIncludes: advertising?.strings("SupportedIncludes") ?? [], maxAdvertisingLength: maxAdvLen)
    }
}
