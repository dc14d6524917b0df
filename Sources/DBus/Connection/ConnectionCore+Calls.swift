import CDBus
import Dispatch

extension ConnectionCore {
    /// The method calls in flight, keyed by serial. The connection matches each reply to its call itself, in the
    /// message filter, as sd-bus and zbus do, instead of through libdbus's `DBusPendingCall`: that costs an
    /// allocation, a hash table and a notification round of its own per call, and reply deadlines are kept by the
    /// connection's one timer anyway.
    struct Calls {
        var pending: [UInt32: PendingReply] = [:]
        /// The deadline the loop's reply timer is set for, nil when it is disarmed.
        var armedDeadline: DispatchTime?
        var closed = false
    }

    /// The default reply timeout, libdbus's own default: 25 seconds.
    static let defaultTimeout = DispatchTimeInterval.seconds(25)

    /// The moment a call sent now with `timeout` (nil: the default) gives up.
    static func deadline(after timeout: Duration?) -> DispatchTime {
        guard let timeout else { return .now() + defaultTimeout }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, seconds < Int64(Int32.max) else { return .distantFuture }
        let total = max(nanoseconds.partialValue + attoseconds / 1_000_000_000, 1)
        return .now() + .nanoseconds(Int(total))
    }

    /// Refuses a message carrying file descriptors on a transport that cannot pass them (TCP, or a peer that
    /// did not negotiate fd passing), which libdbus would otherwise report as an allocation failure.
    func checkCanSend(_ message: Message) throws(DBusError) {
        if dbus_message_contains_unix_fds(message.raw) != 0, dbus_connection_can_send_type(raw, TypeCode.unixFD) == 0 {
            throw DBusError(.invalidValue, "this connection cannot pass file descriptors")
        }
    }

    /// Sends a method call and waits for its reply. Error replies throw ``DBusError`` with the remote name.
    func call(_ message: Message, timeout: Duration?) async throws(DBusError) -> Message {
        try checkCanSend(message)
        let deadline = Self.deadline(after: timeout)
        let ticket = CallTicket()
        let result = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                send(message, deadline: deadline, ticket: ticket, resuming: continuation)
            }
        } onCancel: {
            abandon(ticket)
        }
        _ = ticket.handedOver.load(ordering: .acquiring)
        return try result.get()
    }

    /// Sends the call and registers it under its serial, or fails it at once.
    ///
    /// libdbus writes the message out inside `dbus_connection_send`, so the reply may be read on the loop before
    /// that returns. The send therefore happens under the calls' lock, which the filter needs to look the reply up:
    /// a reply never finds its call missing. libdbus takes only its own connection lock inside, and calls back
    /// only into the loop's, never into this one.
    private func send(
        _ message: Message, deadline: DispatchTime, ticket: CallTicket,
        resuming continuation: UnsafeContinuation<Result<Message, DBusError>, Never>
    ) {
        let failure: DBusError? = calls.withLock { calls in
            guard !calls.closed else { return DBusError(.disconnected, "the connection is closed") }
            guard ticket.state.load(ordering: .acquiring) == CallTicket.unsent else {
                return DBusError(.cancelled, "the call was cancelled")
            }
            var serial: UInt32 = 0
            guard dbus_connection_send(raw, message.raw, &serial) != 0 else {
                return DBusError(.outOfMemory, "cannot send the method call")
            }
            guard
                ticket.state.compareExchange(
                    expected: CallTicket.unsent, desired: UInt64(serial), ordering: .acquiringAndReleasing
                ).exchanged
            else {
                return DBusError(.cancelled, "the call was cancelled")  // sent, but nobody will take the reply
            }
            calls.pending[serial] = PendingReply(continuation: continuation, ticket: ticket, deadline: deadline)
            if calls.armedDeadline.map({ deadline < $0 }) ?? true {
                calls.armedDeadline = deadline
                loop.setReplyDeadline(deadline)
            }
            return nil
        }
        if let failure { continuation.resume(returning: .failure(failure)) }
    }

    /// The caller's task was cancelled: before the send, the sender sees it; after, the call is failed here
    /// unless its reply, timeout or the close got to it first. Any thread.
    private func abandon(_ ticket: CallTicket) {
        let (marked, serial) = ticket.state.compareExchange(
            expected: CallTicket.unsent, desired: CallTicket.cancelled, ordering: .acquiringAndReleasing)
        guard !marked, serial != CallTicket.cancelled else { return }
        let entry = calls.withLock { $0.pending.removeValue(forKey: UInt32(truncatingIfNeeded: serial)) }
        entry?.resume(with: .failure(DBusError(.cancelled, "the call was cancelled")))
    }

    /// Hands a reply (or error reply) to the call it answers. Returns false when no call waits for it any more:
    /// it was cancelled or timed out. Runs on the loop, from the message filter.
    func deliverReply(_ reply: Message) -> Bool {
        let serial = dbus_message_get_reply_serial(reply.raw)
        guard let entry = calls.withLock({ $0.pending.removeValue(forKey: serial) }) else { return false }
        entry.resume(with: reply.error.map { .failure($0) } ?? .success(reply))
        return true
    }

    /// Fails the calls whose deadline has passed with `NoReply`, then re-arms the timer for the next deadline.
    /// Runs on the loop when the reply timer fires.
    func expireReplies() {
        let now = DispatchTime.now()
        let expired: [PendingReply] = calls.withLock { calls in
            let serials = calls.pending.filter { $0.value.deadline <= now }.keys
            let expired = serials.compactMap { calls.pending.removeValue(forKey: $0) }
            calls.armedDeadline = calls.pending.values.lazy.map(\.deadline).min()
            loop.setReplyDeadline(calls.armedDeadline)
            return expired
        }
        let noReply = DBusError(
            name: .noReply, message: "Did not receive a reply: the reply timeout expired or the peer did not answer")
        for entry in expired { entry.resume(with: .failure(noReply)) }
    }

    /// Fails every call in flight with `.disconnected`, and any later one. Any thread.
    func failCalls() {
        let taken = calls.withLock { calls in
            calls.closed = true
            calls.armedDeadline = nil
            defer { calls.pending = [:] }
            return Array(calls.pending.values)
        }
        let closed = DBusError(.disconnected, "the connection was closed")
        for entry in taken { entry.resume(with: .failure(closed)) }
    }

    /// Queues a message without waiting for any reply. Any thread.
    func send(_ message: Message) throws(DBusError) {
        guard !isClosed else { throw DBusError(.disconnected, "the connection is closed") }
        try checkCanSend(message)
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError(.outOfMemory, "cannot queue the message")
        }
    }
}
