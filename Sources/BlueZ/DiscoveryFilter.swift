import FoundationEssentials

/// The arguments of `Adapter1.SetDiscoveryFilter`, and the check we re-apply to every result.
///
/// bluetoothd merges (ORs) the filters of all its clients, so a device another program asked for can show up in
/// our results; ``matches(_:)`` is therefore applied to every device before it becomes an event.
public struct DiscoveryFilter: Sendable, Equatable {
    /// `Transport`: `le` by default. Without it, non-discoverable advertisements never become Device1 objects.
    public var transport: String
    /// `DuplicateData`: report every advertisement, so changing data arrives as property changes.
    public var duplicateData: Bool
    /// `UUIDs`: only devices advertising one of these service UUIDs (as ServiceUUIDs or ServiceData keys).
    public var uuids: [BluetoothUUID]
    /// `RSSI`: only devices at least this strong (dBm).
    public var rssi: Int16?
    /// `Pattern`: only devices whose address or name starts with this.
    public var pattern: String?
    /// Only devices carrying manufacturer data from this company (not a BlueZ filter; checked here only).
    public var manufacturerID: UInt16?

    /// A filter; the defaults are what handoff needs: LE only, duplicates on.
    public init(
        transport: String = "le", duplicateData: Bool = true, uuids: [BluetoothUUID] = [], rssi: Int16? = nil,
        pattern: String? = nil, manufacturerID: UInt16? = nil
    ) {
        self.transport = transport
        self.duplicateData = duplicateData
        self.uuids = uuids
        self.rssi = rssi
        self.pattern = pattern
        self.manufacturerID = manufacturerID
    }

    /// Whether `device` passes this filter (the re-check against BlueZ's merged filters).
    public func matches(_ device: Device1.Properties) -> Bool {
        if !uuids.isEmpty {
            let offered = Set(device.uuids).union(device.serviceData.keys)
            if offered.isDisjoint(with: uuids) { return false }
        }
        if let rssi, let seen = device.rssi, seen < rssi { return false }
        if let pattern, !pattern.isEmpty {
            let name = device.name ?? ""
            if !device.address.string.hasPrefix(pattern.uppercased()) && !name.hasPrefix(pattern) { return false }
        }
        if let manufacturerID, device.manufacturerData[manufacturerID] == nil { return false }
        return true
    }
}
