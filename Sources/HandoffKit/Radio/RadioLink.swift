/// The client side of a connection to a peer's transfer service: GATT characteristics, or an L2CAP channel that
/// carries the same frames as whole SDUs.
public protocol RadioLink: Sendable {
    /// The peer.
    var peer: PeerAddress { get }
    /// The negotiated ATT MTU (for a channel: the ATT MTU it stands in for, at most 515, so ATT-sized code such
    /// as pairing fragments stays within 512 bytes).
    var mtu: Int { get }
    /// The largest frame either side may send on this link: `WireProtocol.valueLength(forMTU: mtu)` on GATT, the
    /// smaller of the channel's two SDU sizes on L2CAP (up to 65535). The engine fills DATA frames up to it.
    var maximumFrameLength: Int { get }
    /// The path this link's frames take, and why it fell back to GATT if it did.
    var transport: LinkTransport { get }
    /// How long each step of opening this link took (empty when the radio does not measure it).
    var setup: [LinkSetupPhase] { get }
    /// Frames from the source in order (notifications of the data characteristic, or the channel's SDUs).
    /// Finishes when the link disconnects.
    var notifications: AsyncStream<[UInt8]> { get }
    /// Sends `value` to the source: a write with response to the request characteristic (at most 512 bytes),
    /// or one SDU on the channel (at most `maximumFrameLength`).
    func write(_ value: [UInt8]) async throws
    /// Disconnects. Idempotent.
    func disconnect() async
}

extension RadioLink {
    /// GATT's limit: one ATT value at this link's MTU.
    public var maximumFrameLength: Int { WireProtocol.valueLength(forMTU: mtu) }
    /// Plain GATT.
    public var transport: LinkTransport { .gatt }
    /// Not measured.
    public var setup: [LinkSetupPhase] { [] }
}
