import FoundationEssentials

/// The new group key still owed to devices after a revocation, without I/O. Each remaining device gets its
/// `RekeyMessage` the next time one of its beacons is heard still sealed under the previous key; until then only
/// those devices' beacons are opened under that key, and one delivery per device runs at a time.
struct RekeyDeliveries: Sendable {
    private var pending: [UUID: RekeyMessage] = [:]
    private var inFlight: Set<UUID> = []
    private var previousGroup: TrustGroup?
    /// Opens the previous key's beacons of the devices still pending; nil once none is.
    private var previousCodec: BeaconCodec?

    /// Devices that have not yet received the group key of the latest revocation.
    var awaiting: [UUID] { pending.keys.sorted { $0.uuidString < $1.uuidString } }

    /// `revoked` was removed and the group rotated from `previous`; `messages` carry the new key, one per device
    /// left. A device still owed an older key gets the newest message; the previous key becomes `previous`.
    mutating func revoked(_ revoked: UUID, previous: TrustGroup, messages: [RekeyMessage]) {
        pending[revoked] = nil
        for message in messages { pending[message.to] = message }
        previousGroup = previous
        refreshCodec()
    }

    /// A beacon that did not open under the current key. Returns the device and its message when the beacon is
    /// one of a device still owed the key and no delivery to it is running; that delivery is then running.
    mutating func heardUnderPreviousKey(_ beacon: [UInt8]) -> (device: UUID, message: RekeyMessage)? {
        guard let opened = previousCodec?.open(beacon), let message = pending[opened.device],
              !inFlight.contains(opened.device) else { return nil }
        inFlight.insert(opened.device)
        return (opened.device, message)
    }

    /// The delivery to `device` ended; once `delivered`, nothing more is owed to it.
    mutating func finished(_ device: UUID, delivered: Bool) {
        inFlight.remove(device)
        guard delivered else { return }
        pending[device] = nil
        refreshCodec()
    }

    /// Drops what is owed to devices no longer in `trusted`.
    mutating func keep(only trusted: Set<UUID>) {
        pending = pending.filter { trusted.contains($0.key) }
        refreshCodec()
    }

    private mutating func refreshCodec() {
        guard let previousGroup, !pending.isEmpty else {
            previousCodec = nil
            previousGroup = nil
            return
        }
        previousCodec = BeaconCodec(group: previousGroup, devices: Array(pending.keys))
    }
}
