import CDBus

/// One awaited method reply: the bridge between libdbus's `DBusPendingCall` notification and a Swift
/// continuation. It resumes the continuation exactly once, whichever comes first of the reply, the timeout error
/// libdbus synthesises, task cancellation, or the connection closing.
///
/// `@unchecked Sendable` is true: the continuation and pending call are only touched under `state`'s lock, and
/// the pending call is only cancelled on the connection queue.
final class ReplyWaiter: @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Message, any Error>?
        var pending: OpaquePointer?
        var early: DBusError?
        var done = false
    }

    private let state = Locked(State())
    private weak var core: ConnectionCore?

    init(core: ConnectionCore) {
        self.core = core
    }

    /// Stores the continuation; returns false (after resuming it) if the wait already ended.
    func install(_ continuation: CheckedContinuation<Message, any Error>) -> Bool {
        let early: DBusError? = state.withLock { state in
            if state.done { return state.early ?? DBusError(.cancelled, "the call was cancelled") }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(throwing: early)
            return false
        }
        return true
    }

    /// Keeps the caller's reference to the pending call (released on completion).
    func attach(_ pending: OpaquePointer) {
        let alreadyDone = state.withLock { state in
            if state.done { return true }
            state.pending = pending
            return false
        }
        if alreadyDone {
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
        }
    }

    /// Takes the reply from a completed pending call. Runs on the connection queue.
    func completeFromPending(_ pending: OpaquePointer) {
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            complete(.failure(DBusError(.disconnected, "the connection closed before the reply arrived")))
            return
        }
        let message = Message(adopting: reply)
        if let error = message.error {
            complete(.failure(error))
        } else {
            complete(.success(message))
        }
    }

    /// Ends the wait with `error`, cancelling the pending call. Runs on the connection queue.
    func cancelPending(with error: DBusError) {
        let pending = state.withLock { $0.pending }
        if let pending { dbus_pending_call_cancel(pending) }
        complete(.failure(error))
    }

    /// Ends the wait because the task was cancelled. Any thread.
    func cancel() {
        let queue: DispatchQueueRef? = state.withLock { state in
            if state.done { return nil }
            if state.continuation == nil {
                state.done = true
                state.early = DBusError(.cancelled, "the call was cancelled")
                return nil
            }
            return core.map { DispatchQueueRef(core: $0) }
        }
        queue?.core.queue.async { self.cancelPending(with: DBusError(.cancelled, "the call was cancelled")) }
    }

    /// Resumes the continuation once and releases the pending call.
    func complete(_ result: Result<Message, DBusError>) {
        let (continuation, pending) = state.withLock { state -> (CheckedContinuation<Message, any Error>?, OpaquePointer?) in
            if state.done { return (nil, nil) }
            state.done = true
            if case .failure(let error) = result { state.early = error }
            defer {
                state.continuation = nil
                state.pending = nil
            }
            return (state.continuation, state.pending)
        }
        if let pending { dbus_pending_call_unref(pending) }
        core?.forget(self)
        continuation?.resume(with: result.mapError { $0 as any Error })
    }
}

/// A strong reference to a core, carried out of a lock.
private struct DispatchQueueRef {
    let core: ConnectionCore
}
