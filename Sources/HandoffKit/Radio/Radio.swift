/// The seam between HandoffKit and a Bluetooth LE stack. HandoffBlueZ implements it over BlueZ
/// (LEAdvertisement1, Device1 discovery, a GATT application, a GATT client); HandoffTesting implements it in memory.
///
/// It is deliberately BLE-shaped and small: advertise some bytes, report scanned bytes, serve one GATT service
/// with a write characteristic and a notify characteristic, and connect to a peer's service.
public protocol Radio: Sendable {
    /// Starts advertising `beacon` (exactly `WireProtocol.beaconLength` bytes), replacing any previous beacon.
    /// BlueZ: one LEAdvertisement1 (Type "peripheral") whose ManufacturerData is
    /// `{WireProtocol.manufacturerID: beacon}` (or ServiceData under `beaconServiceUUID16`).
    func advertise(_ beacon: [UInt8]) async throws
    /// Stops advertising. Idempotent.
    func stopAdvertising() async
    /// Scans for beacons until the stream's consumer stops. Each event is one received advertisement
    /// (BlueZ: Device1 appearing or its ManufacturerData/ServiceData changing during discovery).
    func scan() async throws -> AsyncStream<ScanEvent>
    /// Publishes the transfer service (`WireProtocol.transferServiceUUID` with its request and data
    /// characteristics) and returns it. Only one service is open at a time.
    func openTransferService() async throws -> any TransferService
    /// Connects to `peer`'s transfer service, subscribes to the data characteristic and returns the link.
    func connect(to peer: PeerAddress) async throws -> any RadioLink
}

/// The source side of the GATT transfer service.
public protocol TransferService: Sendable {
    /// Values centrals wrote to the request characteristic, in arrival order. Finishes when the service closes.
    var writes: AsyncStream<IncomingWrite> { get }
    /// Notifies `value` (at most `WireProtocol.valueLength(forMTU:)` of that central's MTU) on the data
    /// characteristic to `central`. Throws `RadioError` when the central is gone.
    /// Broadcasting to every subscribed central is acceptable: frames carry ids and clients filter.
    func notify(_ value: [UInt8], to central: PeerAddress) async throws
    /// Unpublishes the service.
    func close() async
}

/// The client side of a connection to a peer's transfer service.
public protocol RadioLink: Sendable {
    /// The peer.
    var peer: PeerAddress { get }
    /// The negotiated ATT MTU.
    var mtu: Int { get }
    /// Values notified on the data characteristic, in order. Finishes when the link disconnects.
    var notifications: AsyncStream<[UInt8]> { get }
    /// Writes `value` (at most 512 bytes) to the request characteristic, with response.
    func write(_ value: [UInt8]) async throws
    /// Disconnects. Idempotent.
    func disconnect() async
}
