import CDBus
import Dispatch

extension ConnectionCore {
    /// libdbus's notification that a pending call completed (reply, error or timeout). Runs on the queue.
    static let replyNotify: DBusPendingCallNotifyFunction = { pending, data in
        guard let pending, let data else { return }
        Unmanaged<ReplyWaiter>.fromOpaque(data).takeUnretainedValue().completeFromPending(pending)
    }

    /// Releases the waiter reference given to libdbus with the notification.
    static let releaseWaiter: DBusFreeFunction = { data in
        guard let data else { return }
        Unmanaged<ReplyWaiter>.fromOpaque(data).release()
    }

    /// Converts a timeout to libdbus milliseconds; nil means libdbus's default (25 s).
    static func milliseconds(_ timeout: Duration?) -> Int32 {
        guard let timeout else { return -1 }
        let (seconds, attoseconds) = timeout.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, 1))
    }

    /// Sends a method call and waits for its reply. Error replies throw ``DBusError`` with the remote name.
    func call(_ message: Message, timeout: Duration?) async throws(DBusError) -> Message {
        let waiter = ReplyWaiter(core: self)
        let registered = state.withLock { state in
            guard !state.closed else { return false }
            state.waiters[ObjectIdentifier(waiter)] = waiter
            return true
        }
        guard registered else { throw DBusError(.disconnected, "the connection is closed") }
        let milliseconds = Self.milliseconds(timeout)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard waiter.install(continuation) else { return }
                queue.async { self.start(message, waiter: waiter, timeout: milliseconds) }
            }
        } onCancel: {
            waiter.cancel()
        }
        return try waiter.outcome().get()
    }

    /// Sends the call and arms the reply notification. Runs on the queue, so no reply can be dispatched before
    /// the notification is in place.
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
        waiter.attach(pending)
        if dbus_pending_call_get_completed(pending) != 0 {
            waiter.completeFromPending(pending)
        }
    }

    /// Forgets a finished waiter.
    func forget(_ waiter: ReplyWaiter) {
        state.withLock { _ = $0.waiters.removeValue(forKey: ObjectIdentifier(waiter)) }
    }

    /// Queues a message without waiting for any reply. Any thread.
    func send(_ message: Message) throws(DBusError) {
        guard !isClosed else { throw DBusError(.disconnected, "the connection is closed") }
        guard dbus_connection_send(raw, message.raw, nil) != 0 else {
            throw DBusError(.outOfMemory, "cannot queue the message")
        }
    }
}
