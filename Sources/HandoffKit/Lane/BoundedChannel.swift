import HandoffShared

/// A queue between tasks that holds at most `limit` elements: `push` waits while it is full, `pop` while it is
/// empty. The fast lane's receive path is a chain of these (socket, connection, engine), so a receiver slower than
/// the network holds a few frames in memory and TCP's window holds the sender back, instead of the whole item
/// piling up in unbounded streams.
final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        /// Popped slots are nil until the next compaction, so a popped element is never kept alive here.
        var elements: [Element?] = []
        var head = 0
        var finished = false
        var takers: [CheckedContinuation<Element?, Never>] = []
        var givers: [CheckedContinuation<Void, Never>] = []

        var count: Int { elements.count - head }
    }

    private enum PushOutcome { case taken(CheckedContinuation<Element?, Never>), queued, finished, full }
    private enum PopOutcome { case element(Element, CheckedContinuation<Void, Never>?), end, wait }

    private let limit: Int
    private let state = Locked(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Elements as they are popped; ends after `finish` and the last element. One consumer.
    var stream: AsyncStream<Element> {
        AsyncStream(unfolding: { await self.pop() })
    }

    /// Adds `element`, waiting while the channel is full; false (the element dropped) once it is finished.
    @discardableResult
    func push(_ element: Element) async -> Bool {
        while true {
            let outcome = state.withLock { state -> PushOutcome in
                if state.finished { return .finished }
                if !state.takers.isEmpty { return .taken(state.takers.removeFirst()) }
                guard state.count < limit else { return .full }
                state.elements.append(element)
                return .queued
            }
            switch outcome {
            case .taken(let taker):
                taker.resume(returning: element)
                return true
            case .queued: return true
            case .finished: return false
            case .full:
                await withCheckedContinuation { (giver: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.finished || state.count < limit { return true }
                        state.givers.append(giver)
                        return false
                    }
                    if now { giver.resume() }
                }
            }
        }
    }

    /// The next element, or nil once the channel is finished and empty.
    func pop() async -> Element? {
        await withCheckedContinuation { (taker: CheckedContinuation<Element?, Never>) in
            let outcome = state.withLock { state -> PopOutcome in
                if state.count > 0, let element = state.elements[state.head] {
                    state.elements[state.head] = nil
                    state.head += 1
                    if state.head >= 64 && state.head * 2 >= state.elements.count {
                        state.elements.removeFirst(state.head)
                        state.head = 0
                    }
                    return .element(element, state.givers.isEmpty ? nil : state.givers.removeFirst())
                }
                if state.finished { return .end }
                state.takers.append(taker)
                return .wait
            }
            switch outcome {
            case .element(let element, let giver):
                giver?.resume()
                taker.resume(returning: element)
            case .end: taker.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// No more elements: pushes return false, waiting consumers get nil, queued elements are still popped.
    func finish() {
        let (takers, givers) = state.withLock { state in
            defer { state.finished = true; state.takers = []; state.givers = [] }
            return (state.takers, state.givers)
        }
        for taker in takers { taker.resume(returning: nil) }
        for giver in givers { giver.resume() }
    }
}
