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
        Scenario(name: "radio-restart-continues", limit: .seconds(600),
                 run: { try await Scenarios.continueAfterRestarts(rounds: 10) }),
        // Issue 14 §2: pairing right after bluetoothd restarts on the caches of the last pairing.
        Scenario(name: "radio-pair-after-restart", limit: .seconds(300),
                 run: { try await Scenarios.pairAfterRestart(shifted: false) }),
        Scenario(name: "radio-pair-after-restart-shifted", limit: .seconds(300),
                 run: { try await Scenarios.pairAfterRestart(shifted: true) }),
        Scenario(name: "radio-pair-stale-cache", limit: .seconds(300), run: Scenarios.pairOnStaleCache),
        // Issue 9: the L2CAP channel, its fallbacks, and back-to-back continues.
        Scenario(name: "radio-l2cap-0", limit: .seconds(90),
                 run: { try await Scenarios.roundTrip(bytes: 0, path: .l2cap) }),
        Scenario(name: "radio-l2cap-3k", limit: .seconds(90),
                 run: { try await Scenarios.roundTrip(bytes: 3 * 1024, path: .l2cap) }),
        Scenario(name: "radio-l2cap-64k", limit: .seconds(90),
                 run: { try await Scenarios.roundTrip(bytes: 64 * 1024, path: .l2cap) }),
        Scenario(name: "radio-l2cap-1m", limit: .seconds(240),
                 run: { try await Scenarios.roundTrip(bytes: 1 << 20, path: .l2cap) }),
        Scenario(name: "radio-fallback-no-psm", limit: .seconds(90), run: {
            try await Scenarios.roundTrip(bytes: 3 * 1024, path: .gatt, fallback: .notPublished,
                                          source: { $0.transport = .gatt })     // a build from before the channel
        }),
        Scenario(name: "radio-fallback-refused", limit: .seconds(90), run: {
            // 0xFF: the last dynamic LE PSM; the kernel hands them out from 0x80, so nothing listens on it.
            try await Scenarios.roundTrip(bytes: 3 * 1024, path: .gatt, fallback: .refused,
                                          source: { $0.publishedPSM = 0x00FF })
        }),
        // Run under scripts/vm/bt-connect-fault.so (LD_PRELOAD): connect() on Bluetooth sockets fails with EOPNOTSUPP.
        Scenario(name: "radio-fallback-no-coc", limit: .seconds(90), run: {
            try await Scenarios.roundTrip(bytes: 3 * 1024, path: .gatt, fallback: .unsupported)
        }),
        // Run under bt-connect-fault.so with the first Bluetooth connect() refused, as Linux 6.1 refuses a channel
        // after an EATT collision: the channel must open on a connection of its own, not fall back to GATT.
        Scenario(name: "radio-l2cap-refused-once", limit: .seconds(90), run: {
            try await Scenarios.roundTrip(bytes: 3 * 1024, path: .l2cap, setupEnds: ["refused", "channel"])
        }),
        Scenario(name: "radio-l2cap-resume", limit: .seconds(180), run: Scenarios.channelResume),
        Scenario(name: "radio-l2cap-stranger", limit: .seconds(90), run: Scenarios.channelStranger),
        Scenario(name: "radio-l2cap-cold-links", limit: .seconds(180), run: { try await Scenarios.coldLinks(count: 6) }),
        Scenario(name: "radio-back-to-back", limit: .seconds(300),
                 run: { try await Scenarios.backToBack(count: 10, path: .l2cap) }),
        Scenario(name: "radio-back-to-back-gatt", limit: .seconds(400),
                 run: { try await Scenarios.backToBack(count: 10, path: .gatt) }),
        // Issue 14 §2: eight receivers at once, on btvirt's controllers hci1...hci8 (@controllers=9).
        Scenario(name: "radio-fanout-8", limit: .seconds(300),
                 run: { try await Scenarios.fanOut(receivers: 8, bytes: 64 * 1024) }),
        // Need bluetoothd -E (the advertisement monitor manager); see Scenarios+Discovery.swift.
        Scenario(name: "radio-beacon-monitor", limit: .seconds(90), run: Scenarios.beaconMonitor),
        Scenario(name: "radio-set-aside-monitor", limit: .seconds(90), run: Scenarios.setAsideRelisted),
        Scenario(name: "discovery-latency", limit: .seconds(900), run: Scenarios.discoveryLatency),
    ]
}

/// The scenario bodies (in `Scenarios+*.swift`).
enum Scenarios {}
