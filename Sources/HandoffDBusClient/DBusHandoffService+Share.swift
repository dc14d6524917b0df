import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient

/// ``SharingService`` over the daemon's Share/Outbox/Inbox methods.
extension DBusHandoffService: SharingService {
    public func share(_ item: ShareRequest, to device: String) async throws -> OutboxEntry {
        switch item.content {
        case .bytes(let bytes):
            return try await call(HandoffBusAPI.Method.share, device, item.kind, item.name, item.mediaType, bytes,
                                  timeout: .seconds(60))
        case .file(let handle):
            let descriptor = try UnixFileDescriptor(duplicating: handle.fileDescriptor)
            return try await call(HandoffBusAPI.Method.shareFile, device, item.name, item.mediaType, descriptor,
                                  timeout: .seconds(60))
        }
    }

    public func outbox() async throws -> [OutboxEntry] {
        try await call(HandoffBusAPI.Method.outbox)
    }

    public func cancelOutboxItem(_ id: String) async throws {
        try await call(HandoffBusAPI.Method.cancelOutboxItem, id)
    }

    public func inbox() async throws -> [InboxEntry] {
        try await call(HandoffBusAPI.Method.inbox)
    }

    public func claimInboxItem(_ id: String, destination: String) async throws -> InboxGrant {
        let (entry, descriptor, previous) = try await call(HandoffBusAPI.Method.claimInboxItem, id, destination)
        let data = OpenFile(fileDescriptor: try descriptor.duplicateRawDescriptor())
        return InboxGrant(entry: entry, data: data, previousDestination: previous)
    }

    public func finishInboxItem(_ id: String) async throws {
        try await call(HandoffBusAPI.Method.finishInboxItem, id)
    }

    public func releaseInboxItem(_ id: String) async throws {
        try await call(HandoffBusAPI.Method.releaseInboxItem, id)
    }

    public func dropInboxItem(_ id: String) async throws {
        try await call(HandoffBusAPI.Method.dropInboxItem, id)
    }

    public func inboxPartials() async throws -> [InboxPartialEntry] {
        try await call(HandoffBusAPI.Method.inboxPartials)
    }

    public func dropInboxPartial(_ id: String) async throws {
        try await call(HandoffBusAPI.Method.dropInboxPartial, id)
    }

    /// Items arriving in the inbox, until the stream is cancelled (for `handoff watch`).
    public func inboxArrivals() async throws -> AsyncStream<InboxEntry> {
        let messages = try await signals(HandoffBusAPI.Signal.itemArrived)
        try await call(HandoffBusAPI.Method.watchActivities)   // the daemon signals watchers only
        let (stream, continuation) = AsyncStream<InboxEntry>.makeStream()
        let task = Task {
            for await message in messages {
                if let entry = try? HandoffBusAPI.Signal.itemArrived.arguments(of: message) {
                    continuation.yield(entry)
                }
            }
            continuation.finish()
        }
        let connection = self.connection
        continuation.onTermination = { _ in
            task.cancel()
            withExtendedLifetime(connection) {}
        }
        return stream
    }
}
