import HandoffShared

/// The first element of `stream` satisfying `predicate`, or a `ScenarioFailure` naming `what` after `limit`.
func first<T: Sendable>(_ stream: AsyncStream<T>, _ what: String, limit: Duration = .seconds(30),
                        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }) async throws -> T {
    try await within(limit, what) {
        for await value in stream where predicate(value) { return value }
        throw ScenarioFailure("the stream ended before \(what)")
    }
}

/// Runs `body`, failing with a `ScenarioFailure` naming `what` when it takes longer than `limit`. The body runs
/// in its own task and is only cancelled, not awaited, after the limit: some awaits (an unstructured task's value,
/// a D-Bus call) do not end on cancellation, and a scenario must still report.
func within<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let outcome = Outcome(continuation)
        let work = Task { outcome.settle(await Result(catching: body)) }
        Task {
            try? await Task.sleep(for: limit)
            work.cancel()
            outcome.settle(.failure(ScenarioFailure("no \(what) within \(limit)")))
        }
    }
}

/// Resumes a continuation with the first result it is given and ignores the rest.
final class Outcome<T: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) {
        self.continuation = Locked(continuation)
    }

    func settle(_ result: Result<T, any Error>) {
        continuation.withLock { pending in
            pending?.resume(with: result)
            pending = nil
        }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}

/// Seconds, with three decimals.
func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    let value = Double(whole) + Double(attoseconds) / 1e18
    return String(format: "%.3f", value)
}
