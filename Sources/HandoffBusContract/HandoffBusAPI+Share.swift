import DBus
import HandoffClient

/// The share, outbox and inbox part of the daemon's API (Docs/dbus-api.md, "Sharing").
extension HandoffBusAPI {
    /// An outbox entry: id, device, name, kind, state, sent bytes, total bytes, age in seconds, reason.
    public static let outboxEntrySignature = Signature(of: OutboxEntry.self)
    /// An inbox item: id, sender, name, kind, media type, size in bytes, age in seconds, original name.
    public static let inboxEntrySignature = Signature(of: InboxEntry.self)
    /// A push under way: id, sender, name, received bytes, announced bytes, age and seconds until it expires.
    public static let inboxPartialSignature = Signature(of: InboxPartialEntry.self)
}

extension HandoffBusAPI.Method {
    /// `Share(s device, s kind, s name, s mediaType, ay content) → (sssssttds)`: text, a link or a small file.
    public static let share = MethodDeclaration(
        "Share", in: String.self, String.self, String.self, String.self, [UInt8].self, out: OutboxEntry.self,
        inputNames: ["device", "kind", "name", "mediaType", "content"], outputNames: ["entry"])
    /// `ShareFile(s device, s name, s mediaType, h file) → (sssssttds)`: a regular file, read through the descriptor.
    public static let shareFile = MethodDeclaration(
        "ShareFile", in: String.self, String.self, String.self, UnixFileDescriptor.self, out: OutboxEntry.self,
        inputNames: ["device", "name", "mediaType", "file"], outputNames: ["entry"])
    /// `ShareStream(s device, h stream) → (sssssttds)`: bytes of unknown length (`handoff share -`), framed on a
    /// stream socket as ``ShareStreamFraming`` says, copied into the spool as they come; the reply comes after the end.
    public static let shareStream = MethodDeclaration(
        "ShareStream", in: String.self, UnixFileDescriptor.self, out: OutboxEntry.self,
        inputNames: ["device", "stream"], outputNames: ["entry"])
    /// `Outbox() → a(sssssttds)`.
    public static let outbox = MethodDeclaration("Outbox", out: [OutboxEntry].self, outputNames: ["entries"])
    /// `CancelOutboxItem(s id)`.
    public static let cancelOutboxItem = MethodDeclaration("CancelOutboxItem", in: String.self, inputNames: ["id"])
    /// `Inbox() → a(ssssstds)`.
    public static let inbox = MethodDeclaration("Inbox", out: [InboxEntry].self, outputNames: ["items"])
    /// `ClaimInboxItem(s id, s destination) → ((ssssstds) item, h data, s previousDestination)`.
    public static let claimInboxItem = MethodDeclaration(
        "ClaimInboxItem", in: String.self, String.self, out: InboxEntry.self, UnixFileDescriptor.self, String.self,
        inputNames: ["id", "destination"], outputNames: ["item", "data", "previousDestination"])
    /// `FinishInboxItem(s id)`.
    public static let finishInboxItem = MethodDeclaration("FinishInboxItem", in: String.self, inputNames: ["id"])
    /// `ReleaseInboxItem(s id)`.
    public static let releaseInboxItem = MethodDeclaration("ReleaseInboxItem", in: String.self, inputNames: ["id"])
    /// `DropInboxItem(s id)`.
    public static let dropInboxItem = MethodDeclaration("DropInboxItem", in: String.self, inputNames: ["id"])
    /// `InboxPartials() → a(sssttdd)`: pushes under way, which count against the quota until they expire.
    public static let inboxPartials = MethodDeclaration("InboxPartials", out: [InboxPartialEntry].self,
                                                        outputNames: ["partials"])
    /// `DropInboxPartial(s id)`.
    public static let dropInboxPartial = MethodDeclaration("DropInboxPartial", in: String.self, inputNames: ["id"])
}

extension HandoffBusAPI.Signal {
    /// `ItemArrived((ssssstds) item)`, to connections that called WatchActivities.
    public static let itemArrived = SignalDeclaration("ItemArrived", of: InboxEntry.self, argumentNames: ["item"])
}

extension HandoffBusError {
    /// No inbox or outbox item has that id (it was taken, dropped, delivered, or never existed).
    public static let noItem = name("NoItem")
    /// Another take holds the inbox item, or as many shares from standard input as the daemon reads at once are
    /// being read (`ShareStream`).
    public static let busy = name("Busy")
    /// The outbox has no room for the item (its quota is reached); the items already in it are kept.
    public static let outboxFull = name("OutboxFull")
}
