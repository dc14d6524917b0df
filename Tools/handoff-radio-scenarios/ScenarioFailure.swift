/// Why a scenario failed, in one line.
struct ScenarioFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Throws a `ScenarioFailure` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    guard condition else { throw ScenarioFailure(message()) }
}
