/// The package's one fan-out: every subscriber gets its own `AsyncStream` of what is published from then on.
///
/// The engine's availability, pairing, trust, sighting and arrival streams and the BlueZ mirror's change stream
/// are each one of these. A subscriber that stops iterating is dropped at once (its stream's `onTermination`),
/// so the owner needs no removal method of its own. Streams buffer without bound, as `makeStream()` does by
/// default: a slow subscriber never makes another miss an element.
///
/// `publish` hands each element to the subscribers outside the lock, in the order the owner calls it; the owners
/// are actors, which call it one at a time.
package final class Broadcaster<Element: Sendable>: Sendable {
    private struct State {
        var subscribers: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    package init() {}

    /// A stream of every element published from now on. It ends when the subscriber stops iterating, or at
    /// ``finishAll()``.
    package func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `element` to every current subscriber.
    package func publish(_ element: Element) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(element) }
    }

    /// Ends every current subscriber's stream. A later ``subscribe()`` starts a new one.
    package func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
