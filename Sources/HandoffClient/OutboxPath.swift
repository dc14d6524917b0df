/// How an outbox item's bytes travel in its current or last attempt: the link's path (`gatt`, `l2cap`, or `tcp` on
/// the fast lane) and the rate on that link since it began. `handoff share --wait` shows them; `--json` adds
/// them to the entry as `transport` and `bytesPerSecond`.
public struct OutboxPath: Sendable, Equatable, Codable {
    /// The item's id.
    public var id: String
    /// `gatt`, `l2cap` or `tcp`.
    public var transport: String
    /// Sealed-stream bytes per second on that link since it began (0 until a byte moved).
    public var bytesPerSecond: Double

    /// A path.
    public init(id: String, transport: String, bytesPerSecond: Double) {
        self.id = id
        self.transport = transport
        self.bytesPerSecond = bytesPerSecond
    }
}

extension SharingService {
    /// The path of every item in flight or recently sent (a daemon without the method: none).
    public func outboxPaths() async throws -> [OutboxPath] { [] }
}
