/// The first element of `stream` satisfying `predicate`, or a `ScenarioFailure` naming `what` after `limit`.
func first<T: Sendable>(_ stream: AsyncStream<T>, _ what: String, limit: Duration = .seconds(30),
                        where predicate: @escaping @Sendable (T) -> Bool = { _ in true }) async throws -> T {
    try await within(limit, what) {
        for await value in stream where predicate(value) { return value }
        throw ScenarioFailure("the stream ended before \(what)")
    }
}

/// Runs `body`, failing with a `ScenarioFailure` naming `what` when it takes longer than `limit`.
func within<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else {
            throw ScenarioFailure("no \(what) within \(limit)")
        }
        return value
    }
}

/// Seconds, with three decimals.
func seconds(_ duration: Duration) -> String {
    let (whole, attoseconds) = duration.components
    let value = Double(whole) + Double(attoseconds) / 1e18
    return String(format: "%.3f", value)
}
