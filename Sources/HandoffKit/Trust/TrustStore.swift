import FoundationEssentials

/// Everything this device knows about trust: its identity, the group key and the other devices of the group.
/// A `Codable` value: the daemon saves it (JSON, mode 0600) and loads it at start.
public struct TrustStore: Codable, Sendable, Equatable {
    /// This device.
    public internal(set) var identity: DeviceIdentity
    /// The group this device belongs to (alone at first: a fresh device is a group of one).
    public internal(set) var group: TrustGroup
    /// The other devices of the group.
    public internal(set) var devices: [TrustedDevice]
    /// Format version of the stored value.
    public private(set) var format = 1

    /// A fresh store for a new device named `deviceName`: new identity, new group of one.
    public static func create(deviceName: String) throws(HandoffError) -> TrustStore {
        TrustStore(identity: try DeviceIdentity.generate(name: deviceName), group: try TrustGroup.generate(), devices: [])
    }

    /// Creates a store from parts.
    public init(identity: DeviceIdentity, group: TrustGroup, devices: [TrustedDevice]) {
        self.identity = identity
        self.group = group
        self.devices = devices
    }

    /// Throws `invalidTrustState` when keys have the wrong length or devices repeat.
    public func validate() throws(HandoffError) {
        func bad(_ what: String) -> HandoffError { HandoffError(.invalidTrustState, "the trust store is invalid: \(what)") }
        guard format == 1 else { throw bad("unsupported format \(format)") }
        guard identity.publicKey.count == 32, identity.secretKey.count == 32 else { throw bad("identity keys must be 32 bytes") }
        guard group.key.count == 32 else { throw bad("the group key must be 32 bytes") }
        guard Set(devices.map(\.id)).count == devices.count else { throw bad("a device is listed twice") }
        guard !devices.contains(where: { $0.id == identity.id }) else { throw bad("this device lists itself") }
        guard devices.allSatisfy({ $0.publicKey.count == 32 }) else { throw bad("a device key is not 32 bytes") }
    }

    /// Loads a store from JSON, validating it.
    public static func load(from data: Data) throws(HandoffError) -> TrustStore {
        let store: TrustStore
        do {
            store = try JSONDecoder().decode(TrustStore.self, from: data)
        } catch {
            throw HandoffError(.invalidTrustState, "the trust store cannot be read", cause: error)
        }
        try store.validate()
        return store
    }

    /// The store as pretty, stable JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    /// Renames this device.
    public mutating func rename(_ name: String) {
        identity.name = name
    }

    /// The trusted device with `id`.
    public func device(_ id: UUID) -> TrustedDevice? {
        devices.first { $0.id == id }
    }

    /// Records a pairing result: joins `group` and trusts `newDevices` (this device excluded).
    mutating func adopt(group: TrustGroup, devices newDevices: [TrustedDevice]) {
        self.group = group
        var merged: [TrustedDevice] = []
        for device in devices + newDevices where device.id != identity.id {
            if let index = merged.firstIndex(where: { $0.id == device.id }) {
                merged[index] = device
            } else {
                merged.append(device)
            }
        }
        devices = merged
    }
}
