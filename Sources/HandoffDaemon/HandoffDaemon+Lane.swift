import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

/// How outbox items travel (`OutboxPaths`, Docs/dbus-api.md): the path of each push's current link, which
/// moves to `tcp` when the push takes the fast lane (Docs/protocol.md §9), and the rate on it.
extension HandoffDaemon {
    /// One item's current (or last) link: its path, when it began and how many bytes had been sent then.
    struct LinkRecord: Sendable {
        var transport: String
        var since: HandoffInstant
        var sentAtStart: Int
        var sent: Int
        var lastMoved: HandoffInstant
    }

    /// Links of the items in flight and of the last ones sent (at most `keptPaths`).
    final class PathTable: Sendable {
        let links = Locked<[String: LinkRecord]>([:])
        static let keptPaths = 64

        /// The push of `id` took a link on `transport`.
        func began(_ id: String, transport: String, at now: HandoffInstant) {
            links.withLock { links in
                let sent = links[id]?.sent ?? 0
                links[id] = LinkRecord(transport: transport, since: now, sentAtStart: sent, sent: sent, lastMoved: now)
                if links.count > Self.keptPaths, let oldest = links.min(by: { $0.value.since < $1.value.since }) {
                    links[oldest.key] = nil
                }
            }
        }

        /// The push of `id` has sent `sent` bytes of its stream.
        func moved(_ id: String, sent: Int, at now: HandoffInstant) {
            links.withLock { links in
                guard var record = links[id] else { return }
                // A writer that restarts from the receiver's ACCEPT reports where it starts: the rate counts
                // from there.
                if sent < record.sent { record.sentAtStart = sent }
                record.sent = sent
                record.lastMoved = now
                links[id] = record
            }
        }

        /// The paths, with rates.
        func paths(of ids: Set<String>) -> [OutboxPath] {
            links.withLock { links in
                links.filter { ids.contains($0.key) }.sorted { $0.key < $1.key }.map { id, record in
                    let seconds = record.since.duration(to: record.lastMoved).timeInterval
                    let rate = seconds > 0 ? Double(record.sent - record.sentAtStart) / seconds : 0
                    return OutboxPath(id: id, transport: record.transport, bytesPerSecond: max(0, rate))
                }
            }
        }
    }

    /// `OutboxPaths`: the caller's items.
    func outboxPaths(uid: UInt32) -> [OutboxPath] {
        guard let sharing else { return [] }
        let ids = Set(sharing.outbox.records().filter { $0.uid == uid }.map(\.id))
        return sharing.paths.paths(of: ids)
    }
}
