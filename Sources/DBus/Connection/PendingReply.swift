import Dispatch

/// A call awaiting its reply, with the moment it gives up.
struct PendingReply {
    let waiter: ReplyWaiter
    let deadline: DispatchTime
}
