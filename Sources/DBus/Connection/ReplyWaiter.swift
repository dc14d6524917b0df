import CDBus
import Dispatch
import HandoffShared

/// One awaited method reply: the bridge between libdbus's `DBusPendingCall` notification and a Swift
/// continuation. It ends the wait exactly once, whichever comes first of the reply, the timeout error libdbus
/// synthesises, task cancellation, or the connection closing.
///
/// The outcome is stored under the lock and read back under it by the awaiting task, so the hand-over from the
/// connection's loop to the task is ordered by the mutex, not only by the continuation.
///
/// `@unchecked Sendable` is true: every mutable field lives in `state` behind its lock, and the pending call is
/// only cancelled on the connection's loop.
final class ReplyWaiter: @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var pending: OpaquePointer?
        var outcome: Result<Message, DBusError>?
        var replyTaken = false
    }

    private let state = Locked(State())
    private weak var core: ConnectionCore?

    init(core: ConnectionCore) {
        self.core = core
    }

    /// Stores the continuation; returns false (after resuming it) if the wait already ended.
    func install(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
        let finished = state.withLock { state in
            if state.outcome != nil { return true }
            state.continuation = continuation
            return false
        }
        if finished { continuation.resume() }
        return !finished
    }

    /// The outcome, once the continuation has been resumed.
    func outcome() -> Result<Message, DBusError> {
        state.withLock { $0.outcome } ?? .failure(DBusError(.cancelled, "the call was cancelled"))
    }

    /// Keeps the caller's reference to the pending call (released on completion).
    func attach(_ pending: OpaquePointer) {
        let alreadyDone = state.withLock { state in
            if state.outcome != nil { return true }
            state.pending = pending
            return false
        }
        if alreadyDone {
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
        }
    }

    /// Takes the reply from a completed pending call: from libdbus's notification on the queue, or from the
    /// sender when the call completed before the notification was armed. Only the first caller takes it.
    func completeFromPending(_ pending: OpaquePointer) {
        let stolen: OpaquePointer?? = state.withLock { state in
            guard !state.replyTaken, state.outcome == nil else { return .none }
            state.replyTaken = true
            return .some(dbus_pending_call_steal_reply(pending))
        }
        guard let stolen else { return }
        guard let reply = stolen else {
            complete(.failure(DBusError(.disconnected, "the connection closed before the reply arrived")))
            return
        }
        core?.counters.replies.add(1, ordering: .relaxed)
        let message = Message(adopting: reply)
        if let error = message.error {
            complete(.failure(error))
        } else {
            complete(.success(message))
        }
    }

    /// Ends the wait with `error`, cancelling the pending call. Runs on the connection's loop.
    func cancelPending(with error: DBusError) {
        // A reference of our own: the sender's thread may complete the call and release the waiter's meanwhile.
        let pending = state.withLock { state in state.pending.map { dbus_pending_call_ref($0) } }
        if let pending {
            dbus_pending_call_cancel(pending)
            dbus_pending_call_unref(pending)
        }
        complete(.failure(error))
    }

    /// Ends the wait because the task was cancelled. Any thread.
    func cancel() {
        let cancelled = DBusError(.cancelled, "the call was cancelled")
        enum Action { case none, forget, cancelOnLoop(ConnectionLoop) }
        let action: Action = state.withLock { state in
            if state.outcome != nil { return .none }
            if state.continuation == nil {
                state.outcome = .failure(cancelled)
                return .forget
            }
            return core.map { .cancelOnLoop($0.loop) } ?? .none
        }
        switch action {
        case .none: break
        case .forget: core?.forget(self)
        case .cancelOnLoop(let loop): loop.async { self.cancelPending(with: cancelled) }
        }
    }

    /// Records the outcome once, resumes the waiting task and releases the pending call.
    func complete(_ result: Result<Message, DBusError>) {
        let taken: (CheckedContinuation<Void, Never>?, OpaquePointer?)? = state.withLock { state in
            if state.outcome != nil { return nil }
            state.outcome = result
            defer {
                state.continuation = nil
                state.pending = nil
            }
            return (state.continuation, state.pending)
        }
        guard let (continuation, pending) = taken else { return }
        if let pending { dbus_pending_call_unref(pending) }
        core?.forget(self)
        continuation?.resume()
    }
}
