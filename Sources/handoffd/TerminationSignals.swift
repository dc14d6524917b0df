import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Waits for SIGTERM or SIGINT without polling (Dispatch signal sources), for a clean shutdown.
enum TerminationSignals {
    /// Returns the first of SIGTERM or SIGINT to arrive.
    static func wait() async -> Int32 {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "handoffd.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler(handler: makeHandler(continuation, number))
            source.resume()
            return source
        }
        var received = SIGTERM
        for await number in stream {
            received = number
            break
        }
        for source in sources { source.cancel() }
        return received
    }

    /// A handler that belongs to no actor, so Dispatch may run it on the signal queue.
    private nonisolated static func makeHandler(_ continuation: AsyncStream<Int32>.Continuation, _ number: Int32)
        -> @Sendable () -> Void
    {
        { continuation.yield(number) }
    }
}
