import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

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
        case .stream(let source, let text):
            return try await shareStream(item, from: source, asText: text, to: device)
        }
    }

    /// Streams `source` to the daemon through a socket pair: a thread of its own copies it in frames into one end
    /// while the call, carrying the other end, waits for the daemon's answer, which comes once the stream has
    /// ended (or the daemon refused it: the outbox quota, --max-item). Memory stays at one 64 KiB frame.
    private func shareStream(_ item: ShareRequest, from source: OpenFile, asText text: ShareRequest.Label?,
                             to device: String) async throws -> OutboxEntry {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw ServiceError(.failed, "cannot make a socket pair for standard input: "
                + String(cString: strerror(errno)))
        }
        // The reading end goes to the daemon and is closed here once the call returns: a copier still sending then
        // gets EPIPE and stops.
        let descriptor = UnixFileDescriptor(takingOwnershipOf: ends[0])
        let writing = OpenFile(fileDescriptor: ends[1])
        let file = ShareStreamFraming.Trailer(kind: item.kind, name: item.name, mediaType: item.mediaType)
        let textTrailer = text.map { ShareStreamFraming.Trailer(kind: $0.kind, name: $0.name, mediaType: $0.mediaType) }
        let copied = Locked<ShareStreamFraming.Failure?>(nil)
        DetachedThread.start {
            do throws(ShareStreamFraming.Failure) {
                try ShareStreamFraming.write(from: source.fileDescriptor, to: writing.fileDescriptor, file: file,
                                      text: textTrailer)
            } catch {
                copied.withLock { $0 = error }
            }
            writing.close()   // the end: without the trailer, the daemon keeps nothing
        }
        do {
            // As long as the input takes: a producer may be slow, and the daemon answers at the end.
            return try await call(HandoffBusAPI.Method.shareStream, device, descriptor, timeout: .seconds(24 * 3600))
        } catch {
            // Standard input's own failure says more than the daemon's "the stream ended before its end mark".
            if let failure = copied.withLock({ $0 }), failure.code != EPIPE {
                throw ServiceError(.failed, failure.message, cause: error)
            }
            throw error
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
