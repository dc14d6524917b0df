import FoundationEssentials

/// What the CLI's share, outbox and inbox commands need from the daemon, beside ``HandoffService``.
///
/// The daemon keeps the outbox (items on their way to another device, like a background upload session) and the
/// inbox (items that arrived) in its state directory. Taking an item out is a claim, a copy the caller makes with
/// the file descriptor it is given, and a finish; see ``InboxTaker`` for why that is exactly once.
public protocol SharingService: HandoffService {
    /// Hands an item to the daemon for delivery to `device` (a paired device's id or name) and returns its outbox
    /// entry at once. The daemon copies a file's bytes into its spool before it answers, so the caller may exit; a
    /// stream's bytes it copies as they come, and it answers once the stream has ended.
    func share(_ item: ShareRequest, to device: String) async throws -> OutboxEntry

    /// The caller's outbox: pending, delivered, failed and cancelled items, oldest first.
    func outbox() async throws -> [OutboxEntry]

    /// How items in flight or recently sent travel (OutboxPath.swift has a default: none).
    func outboxPaths() async throws -> [OutboxPath]

    /// Cancels an outbox item that is not delivered yet.
    func cancelOutboxItem(_ id: String) async throws

    /// Items waiting in the inbox, oldest first.
    func inbox() async throws -> [InboxEntry]

    /// Claims an inbox item for copying into `destination` (an absolute directory path).
    func claimInboxItem(_ id: String, destination: String) async throws -> InboxGrant

    /// The claimed item is safely in its destination: the daemon removes it.
    func finishInboxItem(_ id: String) async throws

    /// The claimed item could not be copied: it goes back into the inbox.
    func releaseInboxItem(_ id: String) async throws

    /// Deletes a waiting inbox item.
    func dropInboxItem(_ id: String) async throws

    /// Pushes under way into the inbox, oldest first.
    func inboxPartials() async throws -> [InboxPartialEntry]

    /// Deletes a push under way, freeing its share of the inbox quota.
    func dropInboxPartial(_ id: String) async throws

    /// Items arriving in the inbox from now on, until the stream is cancelled (for `handoff watch`).
    func inboxArrivals() async throws -> AsyncStream<InboxEntry>
}

/// An item to share: its kind, name, media type and bytes.
public struct ShareRequest: Sendable {
    /// What to send.
    public enum Content: Sendable {
        /// Text or a link, or a small file read whole.
        case bytes([UInt8])
        /// An open regular file (the daemon reads it through the descriptor, never by path).
        case file(OpenFile)
        /// Bytes read from `source` (a pipe, a terminal) up to its end, of a length nobody knows up front: they
        /// flow to the daemon as they are read, never held whole (``ShareStreamFraming``). When every byte is UTF-8 and
        /// `asText` is given, the item goes with that kind, name and media type instead of the request's.
        case stream(OpenFile, asText: Label?)
    }

    /// A kind, a name and a media type.
    public struct Label: Sendable {
        public var kind: String
        public var name: String
        public var mediaType: String

        /// Creates a label.
        public init(kind: String, name: String, mediaType: String) {
            self.kind = kind
            self.name = name
            self.mediaType = mediaType
        }
    }

    /// `file`, `text` or `url`.
    public var kind: String
    /// The name shown on the other side (a file's last path component).
    public var name: String
    /// The media type.
    public var mediaType: String
    /// The bytes.
    public var content: Content

    /// Creates a request.
    public init(kind: String, name: String, mediaType: String, content: Content) {
        self.kind = kind
        self.name = name
        self.mediaType = mediaType
        self.content = content
    }
}

/// One outbox item, as `handoff outbox --json` lists it.
///
/// JSON: `{"ageSeconds":3,"device":"desktop","id":"…","kind":"file","name":"report.pdf","reason":"",
/// "sentBytes":1024,"state":"pending","totalBytes":1048576}`.
public struct OutboxEntry: Sendable, Equatable, Codable {
    /// The item's id (also the push's transfer id).
    public var id: String
    /// The receiving device's name.
    public var device: String
    /// The item's name.
    public var name: String
    /// `file`, `text` or `url`.
    public var kind: String
    /// `pending`, `sending`, `delivered`, `failed` or `cancelled`.
    public var state: String
    /// Sealed-stream bytes written in the current or last attempt.
    public var sentBytes: Int
    /// Sealed-stream length (a little more than the item: one 16-byte tag per 4 KiB record).
    public var totalBytes: Int
    /// Seconds since the item was handed over.
    public var ageSeconds: Double
    /// Why it failed, or what it waits for; empty otherwise.
    public var reason: String
    /// The path of its current or last link (`gatt`, `l2cap`, `tcp`), when the daemon reports it (`OutboxPath`).
    public var transport: String?
    /// The rate on that link, in sealed-stream bytes per second.
    public var bytesPerSecond: Double?

    /// Creates an entry.
    public init(id: String, device: String, name: String, kind: String, state: String, sentBytes: Int,
                totalBytes: Int, ageSeconds: Double, reason: String) {
        self.id = id
        self.device = device
        self.name = name
        self.kind = kind
        self.state = state
        self.sentBytes = sentBytes
        self.totalBytes = totalBytes
        self.ageSeconds = ageSeconds
        self.reason = reason
    }

    /// Whether nothing more will happen to it.
    public var isFinal: Bool { ["delivered", "failed", "cancelled"].contains(state) }
}

/// One inbox item, as `handoff inbox --json` lists it.
///
/// JSON: `{"ageSeconds":5,"id":"…","kind":"file","mediaType":"application/pdf","name":"report.pdf",
/// "originalName":"report.pdf","sender":"laptop","sizeBytes":1048576}`.
public struct InboxEntry: Sendable, Equatable, Codable {
    /// The item's id (16 hex digits).
    public var id: String
    /// The sending device's name.
    public var sender: String
    /// The sanitised name, safe to create.
    public var name: String
    /// `file`, `text` or `url`.
    public var kind: String
    /// The media type the sender gave.
    public var mediaType: String
    /// Length in bytes.
    public var sizeBytes: Int
    /// Seconds since it arrived.
    public var ageSeconds: Double
    /// The name as sent (never used as a path).
    public var originalName: String

    /// Creates an entry.
    public init(id: String, sender: String, name: String, kind: String, mediaType: String, sizeBytes: Int,
                ageSeconds: Double, originalName: String) {
        self.id = id
        self.sender = sender
        self.name = name
        self.kind = kind
        self.mediaType = mediaType
        self.sizeBytes = sizeBytes
        self.ageSeconds = ageSeconds
        self.originalName = originalName
    }
}

/// A push that started arriving and has not finished, as `handoff inbox --partial --json` lists it. It counts
/// against the inbox quota with its announced length until it finishes, is dropped, or expires.
public struct InboxPartialEntry: Sendable, Equatable, Codable {
    /// The push's transfer id (hex).
    public var id: String
    /// The sending device's name.
    public var sender: String
    /// The item's name as sent, or empty before its metadata arrived.
    public var name: String
    /// Bytes stored so far.
    public var receivedBytes: Int
    /// The length the push announced.
    public var announcedBytes: Int
    /// Seconds since it started.
    public var ageSeconds: Double
    /// Seconds until it is removed unless it finishes.
    public var expiresInSeconds: Double

    /// Creates an entry.
    public init(id: String, sender: String, name: String, receivedBytes: Int, announcedBytes: Int,
                ageSeconds: Double, expiresInSeconds: Double) {
        self.id = id
        self.sender = sender
        self.name = name
        self.receivedBytes = receivedBytes
        self.announcedBytes = announcedBytes
        self.ageSeconds = ageSeconds
        self.expiresInSeconds = expiresInSeconds
    }
}

/// A claimed inbox item: its record, a read-only descriptor of its bytes, and, when a take before this one was
/// interrupted, the destination that take was copying into.
public struct InboxGrant: Sendable {
    /// The item.
    public var entry: InboxEntry
    /// Its bytes, open for reading (closed when released).
    public var data: OpenFile
    /// The destination of an interrupted earlier take of this item, or empty.
    public var previousDestination: String

    /// Creates a grant.
    public init(entry: InboxEntry, data: OpenFile, previousDestination: String) {
        self.entry = entry
        self.data = data
        self.previousDestination = previousDestination
    }
}
