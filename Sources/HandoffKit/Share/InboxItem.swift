import FoundationEssentials

/// One item that arrived in the inbox, complete: its bytes are in the store and this metadata is written beside
/// them. `Codable`: it is the `meta.json` of the item.
package struct InboxItem: Codable, Sendable, Equatable, Identifiable {
    /// The item's id in the inbox (16 hex digits, random).
    package var id: String
    /// The push's transfer id (hex); a push that is repeated after it arrived never makes a second item.
    package var transferID: String
    /// The sending device.
    package var senderID: UUID
    /// Its name when the item arrived.
    package var senderName: String
    /// When the item was complete.
    package var receivedAt: Date
    /// Its length in bytes.
    package var size: Int
    /// File, text or link.
    package var kind: ShareKind
    /// The media type the sender gave.
    package var mediaType: String
    /// The sanitised name (safe to create in a directory).
    package var name: String
    /// The name exactly as the sender sent it (to show, never to use as a path).
    package var originalName: String

    /// Creates an item record.
    package init(id: String, transferID: String, senderID: UUID, senderName: String, receivedAt: Date, size: Int,
                kind: ShareKind, mediaType: String, name: String, originalName: String) {
        self.id = id
        self.transferID = transferID
        self.senderID = senderID
        self.senderName = senderName
        self.receivedAt = receivedAt
        self.size = size
        self.kind = kind
        self.mediaType = mediaType
        self.name = name
        self.originalName = originalName
    }
}

/// Limits of the receiving side.
package struct ShareLimits: Sendable, Equatable {
    /// Largest item accepted, in bytes (default ``largestItem``, 4 GB: a long video; over the fast lane a minute
    /// or less, Docs/protocol.md §9). Items go to disk record by record and are never held whole in memory.
    package var maximumItemSize = Self.largestItem
    /// Bytes the inbox may hold in all, arrived and arriving items together, each counted with its metadata and
    /// ``entryOverhead`` (default 8 GB: two of the largest items).
    package var quota = 2 * Self.largestItem
    /// How long a push that stopped halfway is kept for resumption, from its start on the inbox's clock; after that
    /// it no longer counts against the quota and is removed (default 24 h).
    package var partialLifetime: TimeInterval = 24 * 3600

    /// What every item and every push under way counts against the quota beside its bytes and names: its folder
    /// and bookkeeping files (512 bytes).
    package static let entryOverhead = 512

    /// The largest item a push carries, 4 GB (4,000,000,000 bytes): DATA and ACCEPT name stream offsets in 32 bits
    /// (Docs/protocol.md §8), and the sealed stream of 4 GB, at the smallest record size (256 bytes, 16 more for
    /// each record's tag), stays under 4 GiB. A larger setting admits nothing more: a longer stream is refused
    /// on either side as `itemTooLarge`.
    package static let largestItem = 4_000_000_000

    /// The defaults above.
    package init() {}
}

/// A push that started and has not finished: kept for its sender to resume until ``expiresAt``, counted against the
/// quota with its announced length until then.
package struct PartialPush: Sendable, Equatable {
    /// The push's transfer id (hex), which ``ShareInbox/dropPartial(_:)`` takes.
    package var transferID: String
    /// The sending device's name.
    package var senderName: String
    /// The item's name as sent, once its metadata record arrived.
    package var name: String?
    /// Payload bytes stored so far.
    package var receivedBytes: Int
    /// The payload length the push announced.
    package var announcedBytes: Int
    /// When it started.
    package var startedAt: Date
    /// When it is removed unless it completes.
    package var expiresAt: Date
}
