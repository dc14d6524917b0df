@testable import HandoffBlueZ
import HandoffKit
import Testing

/// The connect nudge (``BlueZRadioOptions/connectNudge``): when it runs, when it stops, and how a bench turns it
/// off. What it buys, a connection made at once instead of at the next discovery restart, only shows on a real
/// controller: `make bench-ble` measures it with and without, in one VM boot.
@Suite struct ConnectNudgeTests {
    /// Counts nudges, and wakes the operation that waits for the first.
    private actor Nudges {
        var count = 0
        var waiter: CheckedContinuation<Void, Never>?

        func nudge() {
            count += 1
            waiter?.resume()
            waiter = nil
        }

        func firstNudge() async {
            guard count == 0 else { return }
            await withCheckedContinuation { waiter = $0 }
        }
    }

    @Test func aConnectionStillUnderWayIsNudgedAndTheNudgesEndWithIt() async throws {
        let nudges = Nudges()
        let result = await BlueZRadioLink.nudging(after: .milliseconds(1), every: .milliseconds(1),
                                                  { await nudges.nudge() }) {
            await nudges.firstNudge()       // a connection that is made only once the scan is restarted
            return 7
        }
        #expect(result == 7)
        let after = await nudges.count
        #expect(after >= 1)
        try await Task.sleep(for: .milliseconds(50))     // fifty times the interval between nudges
        #expect(await nudges.count == after, "a nudge after the connection was made")
    }

    @Test func withoutADelayTheOperationRunsAlone() async throws {
        let nudges = Nudges()
        let value = try await BlueZRadioLink.nudging(after: nil, { await nudges.nudge() }) { () async throws in
            try await Task.sleep(for: .milliseconds(20))
            return "made"
        }
        #expect(value == "made")
        #expect(await nudges.count == 0)
    }

    @Test func theEnvironmentTurnsItOffSetsItOrIsRefused() throws {
        var options = BlueZRadioOptions()
        #expect(options.connectNudge == .milliseconds(200))
        try options.setConnectNudge(fromEnvironment: [:])
        #expect(options.connectNudge == .milliseconds(200))
        try options.setConnectNudge(fromEnvironment: ["HANDOFF_CONNECT_NUDGE": "50"])
        #expect(options.connectNudge == .milliseconds(50))
        try options.setConnectNudge(fromEnvironment: ["HANDOFF_CONNECT_NUDGE": "0"])
        #expect(options.connectNudge == nil)
        for bad in ["-1", "soon", "0.5"] {
            #expect(throws: RadioError.self) {
                try options.setConnectNudge(fromEnvironment: ["HANDOFF_CONNECT_NUDGE": bad])
            }
        }
    }
}
