/// Merges a link's notifications with a periodic tick into one stream, so the transfer client can notice both
/// frames and a lack of progress without timing races. The tick comes from `clock`. Cancel with `close()`.
final class LinkInbox: Sendable {
    enum Event: Sendable {
        case frame([UInt8])
        case closed
        case tick
    }

    let events: AsyncStream<Event>
    private let pump: Task<Void, Never>
    private let ticker: Task<Void, Never>
    private let continuation: AsyncStream<Event>.Continuation

    init(link: any RadioLink, tick: Duration, clock: any HandoffClock) {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        events = stream
        self.continuation = continuation
        pump = Task {
            for await value in link.notifications { continuation.yield(.frame(value)) }
            continuation.yield(.closed)
        }
        ticker = Task {
            while !Task.isCancelled {
                do { try await clock.sleep(for: tick) } catch { break }
                continuation.yield(.tick)
            }
        }
    }

    func close() {
        pump.cancel()
        ticker.cancel()
        continuation.finish()
    }
}
