/// One tier-2 scenario: a name, a limit, and a body that returns a detail line or throws why it failed.
struct Scenario: Sendable {
    let name: String
    let limit: Duration
    let run: @Sendable () async throws -> String

    /// Every scenario, in the order `scripts/vm/scenarios.list` runs them (the bluetoothd restart last).
    static let all: [Scenario] = [
        Scenario(name: "radio-beacon", limit: .seconds(90), run: Scenarios.beacon),
        Scenario(name: "radio-continue-0", limit: .seconds(90), run: { try await Scenarios.roundTrip(bytes: 0) }),
        Scenario(name: "radio-continue-3k", limit: .seconds(90), run: { try await Scenarios.roundTrip(bytes: 3 * 1024) }),
        Scenario(name: "radio-continue-64k", limit: .seconds(120),
                 run: { try await Scenarios.roundTrip(bytes: 64 * 1024) }),
        Scenario(name: "radio-continue-1m", limit: .seconds(600),
                 run: { try await Scenarios.roundTrip(bytes: 1 << 20, patient: true) }),
        Scenario(name: "radio-pairing", limit: .seconds(120), run: Scenarios.pairing),
        Scenario(name: "radio-resume", limit: .seconds(240), run: Scenarios.resumeAfterDisconnect),
        Scenario(name: "radio-vanish", limit: .seconds(240), run: Scenarios.sourceVanishes),
        Scenario(name: "radio-restart", limit: .seconds(180), run: Scenarios.bluetoothdRestart),
        // Need bluetoothd -E (the advertisement monitor manager); see Scenarios+Discovery.swift.
        Scenario(name: "radio-beacon-monitor", limit: .seconds(90), run: Scenarios.beaconMonitor),
        Scenario(name: "discovery-latency", limit: .seconds(900), run: Scenarios.discoveryLatency),
    ]
}

/// The scenario bodies (in `Scenarios+*.swift`).
enum Scenarios {}
