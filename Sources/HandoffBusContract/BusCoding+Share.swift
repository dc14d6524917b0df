import DBus
import HandoffClient

/// An outbox entry travels as `(sssssttds)`: id, device, name, kind, state, sent bytes, total bytes, age in
/// seconds, reason.
extension OutboxEntry: DBusRepresentable {
    /// The fields on the wire, in order; negative byte counts are sent as 0.
    typealias Wire = DBusStructure<String, String, String, String, String, UInt64, UInt64, Double, String>

    /// `(sssssttds)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads a `(sssssttds)` outbox entry.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, device, name, kind, state, sent, total, age, reason) = try Wire(dbusValue: dbusValue).fields
        self.init(id: id, device: device, name: name, kind: kind, state: state, sentBytes: Int(clamping: sent),
                  totalBytes: Int(clamping: total), ageSeconds: age, reason: reason)
    }

    /// The entry as `(sssssttds)`.
    public var dbusValue: Value {
        Wire(id, device, name, kind, state, UInt64(max(0, sentBytes)), UInt64(max(0, totalBytes)), ageSeconds,
             reason).dbusValue
    }
}

/// An inbox item travels as `(ssssstds)`: id, sender, name, kind, media type, size in bytes, age in seconds,
/// original name.
extension InboxEntry: DBusRepresentable {
    /// The fields on the wire, in order; a negative size is sent as 0.
    typealias Wire = DBusStructure<String, String, String, String, String, UInt64, Double, String>

    /// `(ssssstds)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads a `(ssssstds)` inbox item.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, sender, name, kind, mediaType, size, age, original) = try Wire(dbusValue: dbusValue).fields
        self.init(id: id, sender: sender, name: name, kind: kind, mediaType: mediaType, sizeBytes: Int(clamping: size),
                  ageSeconds: age, originalName: original)
    }

    /// The item as `(ssssstds)`.
    public var dbusValue: Value {
        Wire(id, sender, name, kind, mediaType, UInt64(max(0, sizeBytes)), ageSeconds, originalName).dbusValue
    }
}

extension InboxPartialEntry: DBusRepresentable {
    /// The fields on the wire, in order; negative counts are sent as 0.
    typealias Wire = DBusStructure<String, String, String, UInt64, UInt64, Double, Double>

    /// `(sssttdd)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads a `(sssttdd)` partial push.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, sender, name, received, announced, age, expires) = try Wire(dbusValue: dbusValue).fields
        self.init(id: id, sender: sender, name: name, receivedBytes: Int(clamping: received),
                  announcedBytes: Int(clamping: announced), ageSeconds: age, expiresInSeconds: expires)
    }

    /// The push as `(sssttdd)`.
    public var dbusValue: Value {
        Wire(id, sender, name, UInt64(max(0, receivedBytes)), UInt64(max(0, announcedBytes)), ageSeconds,
             expiresInSeconds).dbusValue
    }
}
