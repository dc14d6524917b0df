import DBus
import HandoffClient

extension BusCoding {
    /// An outbox entry as `(sssssttds)`.
    public static func value(_ entry: OutboxEntry) -> Value {
        .structure([.string(entry.id), .string(entry.device), .string(entry.name), .string(entry.kind),
                    .string(entry.state), .uint64(UInt64(max(0, entry.sentBytes))),
                    .uint64(UInt64(max(0, entry.totalBytes))), .double(entry.ageSeconds), .string(entry.reason)])
    }

    /// Reads a `(sssssttds)` outbox entry.
    public static func outboxEntry(_ value: Value) throws -> OutboxEntry {
        guard case .structure(let f) = value, f.count == 9, case .string(let id) = f[0], case .string(let device) = f[1],
              case .string(let name) = f[2], case .string(let kind) = f[3], case .string(let state) = f[4],
              case .uint64(let sent) = f[5], case .uint64(let total) = f[6], case .double(let age) = f[7],
              case .string(let reason) = f[8]
        else { throw DBusError(.typeMismatch, "an outbox entry must be (sssssttds), got \(value.type)") }
        return OutboxEntry(id: id, device: device, name: name, kind: kind, state: state, sentBytes: Int(clamping: sent),
                           totalBytes: Int(clamping: total), ageSeconds: age, reason: reason)
    }

    /// An inbox entry as `(ssssstds)`.
    public static func value(_ entry: InboxEntry) -> Value {
        .structure([.string(entry.id), .string(entry.sender), .string(entry.name), .string(entry.kind),
                    .string(entry.mediaType), .uint64(UInt64(max(0, entry.sizeBytes))), .double(entry.ageSeconds),
                    .string(entry.originalName)])
    }

    /// Reads a `(ssssstds)` inbox entry.
    public static func inboxEntry(_ value: Value) throws -> InboxEntry {
        guard case .structure(let f) = value, f.count == 8, case .string(let id) = f[0], case .string(let sender) = f[1],
              case .string(let name) = f[2], case .string(let kind) = f[3], case .string(let type) = f[4],
              case .uint64(let size) = f[5], case .double(let age) = f[6], case .string(let original) = f[7]
        else { throw DBusError(.typeMismatch, "an inbox entry must be (ssssstds), got \(value.type)") }
        return InboxEntry(id: id, sender: sender, name: name, kind: kind, mediaType: type, sizeBytes: Int(clamping: size),
                          ageSeconds: age, originalName: original)
    }

    static let outboxEntryType: DBusType = .structure([.string, .string, .string, .string, .string, .uint64, .uint64,
                                                       .double, .string])
    static let inboxEntryType: DBusType = .structure([.string, .string, .string, .string, .string, .uint64, .double,
                                                      .string])

    /// An array of outbox entries.
    public static func value(_ entries: [OutboxEntry]) -> Value { .array(outboxEntryType, entries.map(value)) }
    /// An array of inbox entries.
    public static func value(_ entries: [InboxEntry]) -> Value { .array(inboxEntryType, entries.map(value)) }
}
