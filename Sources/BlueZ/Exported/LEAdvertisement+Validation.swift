extension LEAdvertisement {
    /// The most data one AD structure carries in a legacy advertisement: 31 bytes minus the length and type
    /// bytes and, for manufacturer data, the 2-byte company identifier (BT_AD_MAX_DATA_LEN in src/shared/ad.h).
    static let maxManufacturerData = 27

    /// Checks what bluetoothd would refuse with the unhelpful "Failed to parse advertisement": one field larger
    /// than an advertisement can ever carry.
    /// - Throws: ``BlueZError`` `.invalidLength`, naming the field.
    public func validate() throws(BlueZError) {
        for (company, data) in manufacturerData where data.count > Self.maxManufacturerData {
            throw BlueZError(.invalidLength, "ManufacturerData for company 0x\(String(company, radix: 16)) is "
                + "\(data.count) bytes; one advertising field holds at most \(Self.maxManufacturerData)")
        }
        for (uuid, data) in serviceData {
            let limit = 31 - 2 - Self.encodedLength(of: uuid)
            if data.count > limit {
                throw BlueZError(.invalidLength, "ServiceData for \(uuid) is \(data.count) bytes; with this UUID "
                    + "one advertising field holds at most \(limit)")
            }
        }
    }

    /// How many bytes a UUID takes in advertising data (bluetoothd shortens Bluetooth-base UUIDs).
    static func encodedLength(of uuid: BluetoothUUID) -> Int {
        guard uuid.string.hasSuffix(BluetoothUUID.baseSuffix) else { return 16 }
        return uuid.string.hasPrefix("0000") ? 2 : 4
    }

    /// The advertising-data bytes this advertisement needs (Flags included), as bluetoothd would lay them out;
    /// Includes that add data (tx-power, appearance, local-name) are counted at their usual size.
    public var estimatedLength: Int {
        var total = 3  // Flags
        var uuidSizes: [Int: Int] = [:]
        for uuid in serviceUUIDs { uuidSizes[Self.encodedLength(of: uuid), default: 0] += 1 }
        for (size, count) in uuidSizes { total += 2 + size * count }
        for data in manufacturerData.values { total += 2 + 2 + data.count }
        for (uuid, data) in serviceData { total += 2 + Self.encodedLength(of: uuid) + data.count }
        if let localName { total += 2 + localName.utf8.count }
        if includes.contains("tx-power") { total += 3 }
        if includes.contains("appearance") { total += 4 }
        return total
    }
}
