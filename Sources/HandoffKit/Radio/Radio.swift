/// The seam between HandoffKit and a Bluetooth LE stack. HandoffBlueZ implements it over BlueZ
/// (LEAdvertisement1, Device1 discovery, a GATT application, a GATT client); HandoffTesting implements it in memory.
///
/// It is deliberately BLE-shaped and small: advertise some bytes, report scanned bytes, serve one GATT service
/// with a write characteristic and a notify characteristic, and connect to a peer's service. A radio may carry
/// the frames on an L2CAP LE credit-based channel instead (its PSM published in the service); links and writes
/// then say so (`LinkTransport`) and carry the larger frame size, and nothing else changes for the engine.
public protocol Radio: Sendable {
    /// Starts advertising `beacon` (exactly `WireProtocol.beaconLength` bytes), replacing any previous beacon.
    /// BlueZ: one LEAdvertisement1 (Type "peripheral") whose ManufacturerData is
    /// `{WireProtocol.manufacturerID: beacon}` (or ServiceData under `beaconServiceUUID16`).
    func advertise(_ beacon: [UInt8]) async throws
    /// Stops advertising. Idempotent.
    func stopAdvertising() async
    /// Scans for beacons until the stream's consumer stops. Each event is one received advertisement
    /// (BlueZ: Device1 appearing or its ManufacturerData/ServiceData changing during discovery). A radio may stay
    /// silent about an advertisement that repeats the last one reported for its peer, as BlueZ does.
    func scan() async throws -> AsyncStream<ScanEvent>
    /// Reports `peer`'s next advertisement to every scan even when it repeats the last one, once: the engine's
    /// way to learn that a source is still in range (an activity set aside after a failed continue comes back
    /// with it). A radio that reports every advertisement has nothing to do. BlueZ: the advertisement monitor's
    /// next `DeviceFound` for the device, or under a discovery its next RSSI change.
    func reportNextAdvertisement(of peer: PeerAddress) async
    /// Publishes the transfer service (`WireProtocol.transferServiceUUID` with its request and data
    /// characteristics) and returns it. Only one service is open at a time.
    func openTransferService() async throws -> any TransferService
    /// Connects to `peer`'s transfer service and returns the link: a channel to its PSM when it publishes one
    /// and the radio can open it, else the GATT characteristics (subscribed to the data characteristic).
    /// A link of an earlier call that is still closing is never reused. A link that dropped by itself (its
    /// `notifications` finished) must still be disconnected by its owner: until then the radio may hold the peer
    /// for it, and a later connect to the peer waits (HandoffBlueZ's device lease).
    func connect(to peer: PeerAddress) async throws -> any RadioLink
}

/// A radio that wraps another to watch or change one part of it (the daemon's transfer progress, a scenario's
/// connection count): every requirement it does not implement itself goes to `base` unchanged.
package protocol RadioDecorator: Radio {
    /// The radio underneath.
    var base: any Radio { get }
}

extension RadioDecorator {
    package func advertise(_ beacon: [UInt8]) async throws { try await base.advertise(beacon) }
    package func stopAdvertising() async { await base.stopAdvertising() }
    package func scan() async throws -> AsyncStream<ScanEvent> { try await base.scan() }
    package func reportNextAdvertisement(of peer: PeerAddress) async { await base.reportNextAdvertisement(of: peer) }
    package func openTransferService() async throws -> any TransferService { try await base.openTransferService() }
    package func connect(to peer: PeerAddress) async throws -> any RadioLink { try await base.connect(to: peer) }
}
