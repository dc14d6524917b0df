import CDBus
import Dispatch

extension ConnectionCore {
    /// libdbus's notification that a pending call completed (reply, error or timeout). Runs on the loop.
    static let replyNotify: DBusPendingCallNotifyFunction = { pending, data in
        guard let pending, let data else { return }
        Unmanaged<ReplyWaiter>.fromOpaque(data).takeUnretainedValue().completeFromPending(pending)
    }

    /// Releases the waiter reference given to libdbus with the notification.
    static let releaseWaiter: DBusFreeFunction = { data in
        guard let data else { return }
        Unmanaged<ReplyWaiter>.fromOpaque(data).release()
    }

    /// libdbus's "no timeout" (`DBUS_TIMEOUT_INFINITE`): reply deadlines are kept by the connection's one timer
    /// instead, because a libdbus timeout per call would create and cancel a Dispatch timer per call.
    static let noLibdbusTimeout: Int32 = 0x7fff_ffff

    /// The default reply timeout, libdbus's own default.
    static let defaultTimeout = Duration.seconds(25)

    /// The moment a call sent now with `timeout` gives up.
    static func deadline(after timeout: Duration?) -> DispatchTime {
        let (seconds, attoseconds) = (timeout ?? defaultTimeout).components
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
        let waiter = ReplyWaiter(core: self)
        let deadline = Self.deadline(after: timeout)
        let registered = state.withLock { state in
            guard !state.closed else { return false }
            state.waiters[ObjectIdentifier(waiter)] = PendingReply(waiter: waiter, deadline: deadline)
            if state.armedDeadline.map({ deadline < $0 }) ?? true {
                state.armedDeadline = deadline
                loop.setReplyDeadline(deadline)
            }
            return true
        }
        guard registered else { throw DBusError(.disconnected, "the connection is closed") }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation) else { return }
                self.start(message, waiter: waiter, timeout: Self.noLibdbusTimeout)
            }
        } onCancel: {
            waiter.cancel()
        }
        return try waiter.outcome().get()
    }

    /// Sends the call and arms the reply notification, on the caller's thread (libdbus writes the message out
    /// at once). The reply may be dispatched on the loop before the notification is armed; then the pending call
    /// is already complete and the reply is taken here. The waiter lets only one side take it.
    private func start(_ message: Message, waiter: ReplyWaiter, timeout: Int32) {
        guard !isClosed else {
            waiter.complete(.failure(DBusError(.disconnected, "the connection is closed")))
            return
        }
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &pending, timeout) != 0 else {
            waiter.complete(.failure(DBusError(.outOfMemory, "cannot send the method call")))
            return
        }
        guard let pending else {
            waiter.complete(.failure(DBusError(.disconnected, "the connection is closed")))
            return
        }
        let data = Unmanaged.passRetained(waiter).toOpaque()
        guard dbus_pending_call_set_notify(pending, Self.replyNotify, data, Self.releaseWaiter) != 0 else {
            Unmanaged<ReplyWaiter>.fromOpaque(data).release()
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
            waiter.complete(.failure(DBusError(.outOfMemory, "cannot wait for the reply")))
            return
        }
        // Once attached, the waiter owns the reference send_with_reply gave us, and the loop may complete the
        // call and release it at any moment, freeing the pending call. The check below needs its own reference.
        dbus_pending_call_ref(pending)
        defer { dbus_pending_call_unref(pending) }
        waiter.attach(pending)
        if dbus_pending_call_get_completed(pending) != 0 {
            waiter.completeFromPending(pending)
        }
    }

    /// Fails the calls whose deadline has passed with `NoReply`, then re-arms the timer for the next deadline.
    /// Runs on the loop when the reply timer fires.
    func expireReplies() {
        let now = DispatchTime.now()
        let expired: [ReplyWaiter] = state.withLock { state in
            let expired = state.waiters.values.filter { $0.deadline <= now }.map(\.waiter)
            let next = state.waiters.values.lazy.filter { $0.deadline > now }.map(\.deadline).min()
            state.armedDeadline = next
            loop.setReplyDeadline(next)
            return expired
        }
        for waiter in expired {
            waiter.cancelPending(
                with: DBusError(
                    name: .noReply,
                    message: "Did not receive a reply: the reply timeout expired or the peer did not answer"))
        }
    }

    /// Forgets a finished waiter.
    func forget(_ waiter: ReplyWaiter) {
        state.withLock { _ = $0.waiters.removeValue(forKey: ObjectIdentifier(waiter)) }
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
