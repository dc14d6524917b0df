/// One live signal subscription: its rule and the stream it feeds.
final class SignalSubscription: Sendable {
    let id: UInt64
    let rule: MatchRule
    private let continuation: AsyncStream<Message>.Continuation

    init(id: UInt64, rule: MatchRule, continuation: AsyncStream<Message>.Continuation) {
        self.id = id
        self.rule = rule
        self.continuation = continuation
    }

    func deliver(_ message: Message) {
        continuation.yield(message)
    }

    func finish() {
        continuation.finish()
    }
}
