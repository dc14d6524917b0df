/// The source side of the transfer service: GATT characteristics, and, where the radio can, an L2CAP channel
/// listener whose channels carry the same frames.
public protocol TransferService: Sendable {
    /// Frames centrals sent (writes to the request characteristic and SDUs on their channels), in arrival order.
    /// Finishes when the service closes.
    var writes: AsyncStream<IncomingWrite> { get }
    /// Sends `value` (at most the `maximumFrameLength` of that central's writes) to `central`: a notification on
    /// the data characteristic, or an SDU on the central's channel. Throws `RadioError` when the central is gone.
    /// Broadcasting to every subscribed central is acceptable: frames carry ids and clients filter.
    func notify(_ value: [UInt8], to central: PeerAddress) async throws
    /// Ends `central`'s link to this device (a channel central's channel, and the link under it), as the gate asks
    /// for a central that wrote what no client of ours writes (`Gate.Writer`), and keeps the device behind it away
    /// for `cooldown` (zero: not at all): its links are ended as soon as they are made, before it can write, so a
    /// stranger that writes garbage costs this device a bare connection now and then, not a link with service
    /// discovery and writes every few seconds. Nothing when it is gone already.
    func drop(_ central: PeerAddress, keepingAwayFor cooldown: Duration) async
    /// Unpublishes the service.
    func close() async
}
