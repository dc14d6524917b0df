import BlueZ
import Foundation

/// One real-BlueZ scenario: a name and the code that proves it. It throws ``ScenarioFailure`` (or any error)
/// to fail, and reports measurements through ``Report``.
struct Scenario: Sendable {
    let name: String
    let run: @Sendable (Report) async throws -> Void
}

/// A scenario's failure, with the reason printed on its FAIL line.
struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Where a scenario writes its notes and measurements (stderr, so they land in the scenario log).
struct Report: Sendable {
    let name: String
    let started = ContinuousClock.now

    func note(_ text: String) {
        FileHandle.standardError.write(Data("[\(name) +\(elapsedMilliseconds) ms] \(text)\n".utf8))
    }

    /// A measurement, as `MEASURE name key=value`, easy to grep from logs.
    func measure(_ key: String, _ value: String) {
        print("MEASURE \(name) \(key)=\(value)")
        note("\(key)=\(value)")
    }

    var elapsedMilliseconds: Int { Self.milliseconds(ContinuousClock.now - started) }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// `check(condition, "what went wrong")`.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScenarioFailure(message()) }
}

/// Runs `body` with a time limit.
func within<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T
{
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ScenarioFailure("timed out after \(limit) waiting for \(what)")
        }
        return value
    }
}
