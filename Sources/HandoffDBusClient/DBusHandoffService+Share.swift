import DBus
import Foundation
import HandoffClient

/// ``SharingService`` over the daemon's Share/Outbox/Inbox methods.
extension DBusHandoffService: SharingService {
    public func share(_ item: ShareRequest, to device: String) async throws -> OutboxEntry {
        let reply: [Value]
        switch item.content {
        case .bytes(let bytes):
            reply = try await call(HandoffBusAPI.Method.share, [.string(device), .string(item.kind), .string(item.name),
                                                                .string(item.mediaType), .bytes(bytes)],
                                   timeout: .seconds(60))
        case .file(let handle):
            let descriptor = try UnixFileDescriptor(duplicating: handle.fileDescriptor)
            reply = try await call(HandoffBusAPI.Method.shareFile, [.string(device), .string(item.name),
                                                                    .string(item.mediaType), .unixFD(descriptor)],
                                   timeout: .seconds(60))
        }
        return try OutboxEntry(dbusValue: reply.first ?? .structure([]))
    }

    public func outbox() async throws -> [OutboxEntry] {
        try await call(HandoffBusAPI.Method.outbox).first.map { try [OutboxEntry](dbusValue: $0) } ?? []
    }

    public func cancelOutboxItem(_ id: String) async throws {
        _ = try await call(HandoffBusAPI.Method.cancelOutboxItem, [.string(id)])
    }

    public func inbox() async throws -> [InboxEntry] {
        try await call(HandoffBusAPI.Method.inbox).first.map { try [InboxEntry](dbusValue: $0) } ?? []
    }

    public func claimInboxItem(_ id: String, destination: String) async throws -> InboxGrant {
        let reply = try await call(HandoffBusAPI.Method.claimInboxItem, [.string(id), .string(destination)])
        guard reply.count == 3, case .unixFD(let descriptor) = reply[1], case .string(let previous) = reply[2] else {
            throw ServiceError(.failed, "the daemon answered ClaimInboxItem with \(reply.map(\.type))")
        }
        let data = FileHandle(fileDescriptor: try descriptor.duplicateRawDescriptor(), closeOnDealloc: true)
        return InboxGrant(entry: try InboxEntry(dbusValue: reply[0]), data: data, previousDestination: previous)
    }

    public func finishInboxItem(_ id: String) async throws {
        _ = try await call(HandoffBusAPI.Method.finishInboxItem, [.string(id)])
    }

    public func releaseInboxItem(_ id: String) async throws {
        _ = try await call(HandoffBusAPI.Method.releaseInboxItem, [.string(id)])
    }

    public func dropInboxItem(_ id: String) async throws {
        _ = try await call(HandoffBusAPI.Method.dropInboxItem, [.string(id)])
    }

    /// Items arriving in the inbox, until the stream is cancelled (for `handoff watch`).
    public func inboxArrivals() async throws -> AsyncStream<InboxEntry> {
        let messages = try await signals(HandoffBusAPI.Signal.itemArrived)
        _ = try await call(HandoffBusAPI.Method.watchActivities)   // the daemon signals watchers only
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
