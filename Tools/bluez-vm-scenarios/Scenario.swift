import ScenarioSupport

/// One real-BlueZ scenario: a name and the code that proves it. It throws ``ScenarioFailure`` (or any error)
/// to fail, and reports measurements through ``Report``.
struct Scenario: Sendable {
    let name: String
    let run: @Sendable (Report) async throws -> Void
}
