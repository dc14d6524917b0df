import Dispatch
import Synchronization

/// A method call awaiting its reply: the task to resume and the moment it gives up.
struct PendingReply {
    /// Resumed exactly once, through ``resume(with:)``, by whoever removes this entry from ``ConnectionCore/Calls``
    /// under its lock: the reply, the reply timer, the caller's cancellation or the connection closing.
    let continuation: UnsafeContinuation<Result<Message, DBusError>, Never>
    let ticket: CallTicket
    let deadline: DispatchTime

    /// Hands `result` to the waiting task, publishing it through ``CallTicket/handedOver`` first.
    func resume(with result: Result<Message, DBusError>) {
        ticket.handedOver.store(true, ordering: .releasing)
        continuation.resume(returning: result)
    }
}

/// One call's progress as its cancellation handler sees it, which may run before, during or after the send:
/// ``unsent``, then either the serial libdbus gave the call or ``cancelled``, whichever is stored first.
final class CallTicket: Sendable {
    /// Not sent yet, and not cancelled.
    static let unsent: UInt64 = 0
    /// Cancelled before the serial was known; the sender fails the call itself. No serial is this large.
    static let cancelled: UInt64 = 1 << 32

    let state = Atomic<UInt64>(CallTicket.unsent)

    /// Set, releasing, just before the continuation is resumed from another thread; the caller loads it, acquiring,
    /// once it has the result. The runtime already orders a resume before the await returns, but where the reply
    /// comes before the caller has suspended, that order is an atomic inside the uninstrumented concurrency
    /// runtime, and ThreadSanitizer reports the reply's own fields as a race. This pair is the edge it can see.
    let handedOver = Atomic<Bool>(false)
}
