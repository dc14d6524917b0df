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
