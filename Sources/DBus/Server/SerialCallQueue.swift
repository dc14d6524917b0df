/// Runs method calls one at a time, in the order they arrived, for an interface exported with
/// `callOrder: .serial`.
///
/// The connection loop submits calls in wire order; a single task drains them, awaiting each before the next.
final class SerialCallQueue: Sendable {
    typealias Job = @Sendable () async -> Void
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        self.continuation = continuation
        Task {
            for await job in stream { await job() }
        }
    }

    /// Queues a call behind the ones already submitted.
    func submit(_ job: @escaping Job) {
        continuation.yield(job)
    }

    /// Stops accepting calls; queued ones still run.
    func finish() {
        continuation.finish()
    }

    deinit {
        continuation.finish()
    }
}
