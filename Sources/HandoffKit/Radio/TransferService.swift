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
