import DBus
import HandoffClient

/// An outbox item's path travels as `(ssd)`: id, transport (`gatt`, `l2cap`, `tcp`), bytes per second.
extension OutboxPath: DBusRepresentable {
    typealias Wire = DBusStructure<String, String, Double>

    /// `(ssd)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads an `(ssd)` path.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, transport, rate) = try Wire(dbusValue: dbusValue).fields
        self.init(id: id, transport: transport, bytesPerSecond: rate)
    }

    /// The path as `(ssd)`.
    public var dbusValue: Value { Wire(id, transport, bytesPerSecond).dbusValue }
}

extension HandoffBusAPI.Method {
    /// `OutboxPaths() → a(ssd)`: how the caller's items in flight or recently sent travel, and their rate
    /// (the fast lane shows as `tcp`, Docs/protocol.md §9).
    public static let outboxPaths = MethodDeclaration("OutboxPaths", out: [OutboxPath].self, outputNames: ["paths"])
}
