@testable import HandoffBlueZ
import HandoffKit
import HandoffTesting
import Testing

/// The connect nudge (``BlueZRadioOptions/connectNudge``): when it runs, when it stops, and how a bench turns it
/// off. What it buys, a connection made at once instead of at the next discovery restart, only shows on a real
/// controller: `make bench-ble` measures it with and without, in one VM boot.
@Suite struct ConnectNudgeTests {
    /// Counts nudges, and wakes whoever waits for a count.
    private actor Nudges {
        var count = 0
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        func nudge() {
            count += 1
            for waiter in waiters where waiter.count <= count { waiter.continuation.resume() }
            waiters.removeAll { $0.count <= count }
        }

        func reached(_ wanted: Int) async {
            guard count < wanted else { return }
            await withCheckedContinuation { waiters.append((wanted, $0)) }
        }
    }

    /// Returns once some task sleeps on `clock` (the nudger, between two nudges).
    private func sleeping(_ clock: VirtualClock) async {
        while clock.sleeperCount == 0 { await Task.yield() }
    }

    @Test func aConnectionStillUnderWayIsNudgedOnTheRadiosClockAndTheNudgesEndWithIt() async throws {
        let clock = VirtualClock()
        let nudges = Nudges()
        let result = await BlueZRadioLink.nudging(after: .milliseconds(200), every: .seconds(1), clock: clock,
                                                  { await nudges.nudge() }) {
            // A connection made only at the second nudge; time moves only when this moves it.
            await sleeping(clock)
            clock.advance(by: .milliseconds(199))
            await sleeping(clock)
            #expect(await nudges.count == 0, "a nudge before the delay")
            clock.advance(by: .milliseconds(1))
            await nudges.reached(1)
            await sleeping(clock)
            clock.advance(by: .seconds(1))
            await nudges.reached(2)
            return 7
        }
        #expect(result == 7)
        #expect(await nudges.count == 2)
        #expect(clock.sleeperCount == 0, "the nudger still waits after the connection was made")
        clock.advance(by: .seconds(60))
        await Task.yield()
        #expect(await nudges.count == 2, "a nudge after the connection was made")
    }

    @Test func withoutADelayTheOperationRunsAlone() async throws {
        let nudges = Nudges()
        let value = try await BlueZRadioLink.nudging(after: nil, clock: RealClock(),
                                                     { await nudges.nudge() }) { () async throws in
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
