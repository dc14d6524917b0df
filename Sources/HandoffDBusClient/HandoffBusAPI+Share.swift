import DBus
import HandoffClient

/// The share, outbox and inbox part of the daemon's API (Docs/dbus-api.md, "Sharing").
extension HandoffBusAPI {
    /// An outbox entry: id, device, name, kind, state, sent bytes, total bytes, age in seconds, reason.
    public static let outboxEntrySignature = Signature(of: OutboxEntry.self)
    /// An inbox item: id, sender, name, kind, media type, size in bytes, age in seconds, original name.
    public static let inboxEntrySignature = Signature(of: InboxEntry.self)
}

extension HandoffBusAPI.Method {
    /// `Share(s device, s kind, s name, s mediaType, ay content) → (sssssttds)`: text, a link or a small file.
    public static let share: MemberName = "Share"
    /// `ShareFile(s device, s name, s mediaType, h file) → (sssssttds)`: a regular file, read through the descriptor.
    public static let shareFile: MemberName = "ShareFile"
    /// `Outbox() → a(sssssttds)`.
    public static let outbox: MemberName = "Outbox"
    /// `CancelOutboxItem(s id)`.
    public static let cancelOutboxItem: MemberName = "CancelOutboxItem"
    /// `Inbox() → a(ssssstds)`.
    public static let inbox: MemberName = "Inbox"
    /// `ClaimInboxItem(s id, s destination) → ((ssssstds) item, h data, s previousDestination)`.
    public static let claimInboxItem: MemberName = "ClaimInboxItem"
    /// `FinishInboxItem(s id)`.
    public static let finishInboxItem: MemberName = "FinishInboxItem"
    /// `ReleaseInboxItem(s id)`.
    public static let releaseInboxItem: MemberName = "ReleaseInboxItem"
    /// `DropInboxItem(s id)`.
    public static let dropInboxItem: MemberName = "DropInboxItem"
}

extension HandoffBusAPI.Signal {
    /// `ItemArrived((ssssstds) item)`, to connections that called WatchActivities.
    public static let itemArrived = SignalDeclaration("ItemArrived", of: InboxEntry.self, argumentNames: ["item"])
}

extension HandoffBusError {
    /// No inbox or outbox item has that id (it was taken, dropped, delivered, or never existed).
    public static let noItem = name("NoItem")
    /// Another take holds the inbox item.
    public static let busy = name("Busy")
}
