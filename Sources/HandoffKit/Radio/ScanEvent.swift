/// One received advertisement carrying a HandoffKit beacon.
public struct ScanEvent: Sendable, Equatable {
    /// Who advertised.
    public var peer: PeerAddress
    /// The beacon bytes (the ManufacturerData value for `WireProtocol.manufacturerID`).
    public var beacon: [UInt8]
    /// Received signal strength, if known.
    public var rssi: Int?

    /// Creates an event.
    public init(peer: PeerAddress, beacon: [UInt8], rssi: Int? = nil) {
        self.peer = peer
        self.beacon = beacon
        self.rssi = rssi
    }
}
