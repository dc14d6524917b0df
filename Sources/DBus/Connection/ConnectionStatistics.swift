import Synchronization

/// How many messages the bus delivered to one connection since it opened (``Connection/statistics``): the cost
/// a peer's chatter imposes on us, counted where libdbus dispatches each message.
public struct ConnectionStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Signals that reached the connection (whether or not a subscription wanted them).
    public var signals: UInt64 = 0
    /// Method calls into our exported objects.
    public var methodCalls: UInt64 = 0
    /// Replies (and error replies) to our calls.
    public var replies: UInt64 = 0

    /// Every message delivered.
    public var total: UInt64 { signals + methodCalls + replies }

    /// `812 messages (800 signals, 4 method calls, 8 replies)`.
    public var description: String {
        "\(total) messages (\(signals) signals, \(methodCalls) method calls, \(replies) replies)"
    }
}

/// The counters behind ``ConnectionStatistics``: relaxed atomics, bumped on the dispatching thread.
final class MessageCounters: Sendable {
    let signals = Atomic<UInt64>(0)
    let methodCalls = Atomic<UInt64>(0)
    let replies = Atomic<UInt64>(0)

    var snapshot: ConnectionStatistics {
        ConnectionStatistics(
            signals: signals.load(ordering: .relaxed), methodCalls: methodCalls.load(ordering: .relaxed),
            replies: replies.load(ordering: .relaxed))
    }
}
