/// Ends work that has gone quiet: ``wait(for:)`` returns the work's value, or nil once `patience` has passed since
/// the work last said it was getting somewhere (``heard()``) or, before that, since the wait began.
///
/// A bound on silence, not on length: a transfer that keeps moving may take as long as it takes, one that stops
/// answering ends `patience` later, wherever it was waiting (a connect, a relink, a reply). Work that is given up
/// on is cancelled and left to unwind on its own; what it returns later is dropped, and ``heard()`` then answers
/// false, so the work can tell that nobody is listening any more.
package final class QuietLimit: Sendable {
    /// How long the work may stay quiet.
    package let patience: Duration
    private let clock: any MonotonicClock
    private let state: Locked<State>

    private struct State {
        var lastHeard: HandoffInstant
        var decided = false
    }

    /// A limit of `patience` on `clock`, starting now.
    package init(patience: Duration, clock: any MonotonicClock) {
        self.patience = patience
        self.clock = clock
        state = Locked(State(lastHeard: clock.now))
    }

    /// Notes that the work got somewhere, which starts the patience again. False once the wait has ended.
    @discardableResult
    package func heard() -> Bool {
        let now = clock.now
        return state.withLock { state in
            guard !state.decided else { return false }
            state.lastHeard = now
            return true
        }
    }

    /// Whether the wait has ended, with the work's value or without it.
    package var isDecided: Bool { state.withLock { $0.decided } }

    /// The value of `work`, or nil when it stayed quiet for `patience` (then `work` is cancelled). Cancelling the
    /// calling task cancels `work`, whose value (or nil, if the limit ran out first) is then returned.
    package func wait<Value: Sendable>(for work: Task<Value, Never>) async -> Value? {
        let first = Locked<CheckedContinuation<Value?, Never>?>(nil)
        @Sendable func decide(_ value: Value?) {
            let won = state.withLock { state in
                defer { state.decided = true }
                return !state.decided
            }
            guard won else { return }
            first.withLock { continuation in
                continuation?.resume(returning: value)
                continuation = nil
            }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                first.value = continuation
                let timer = Task { [clock, patience, state] in
                    while true {
                        let deadline = state.withLock { $0.lastHeard } + patience
                        guard clock.now < deadline else { break }
                        do { try await clock.sleep(until: deadline) } catch { return }
                    }
                    work.cancel()
                    decide(nil)
                }
                Task {
                    let value = await work.value
                    timer.cancel()
                    decide(value)
                }
            }
        } onCancel: {
            work.cancel()
        }
    }
}
