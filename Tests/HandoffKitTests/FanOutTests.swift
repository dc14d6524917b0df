import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Issue 14 §2, "8 receivers continue one source at once", on the in-memory radio: one source offers a 64 KiB note,
/// and eight devices of its group continue it at the same time, each on a link of its own. Every one gets the
/// bytes exactly, and the source hears of each continue once. In the VM the same needs eight LE links to one
/// controller, which btvirt 5.66 cannot hold (Docs/reliability.md).
@Suite struct FanOutTests {
    static let receiverNames = (1...8).map { "r\($0)" }

    /// 64 KiB that no two offsets of a window confuse.
    static let payload = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 8 &+ 17) })

    enum Path: String, CaseIterable, Sendable {
        /// GATT notifications, 3 % of them lost (each receiver asks again for what it misses).
        case gattWithLoss
        /// An L2CAP channel each.
        case channels
    }

    @Test(arguments: Path.allCases)
    func eightReceiversContinueOneSourceAtOnceAndEachGetsTheBytesExactly(_ path: Path) async throws {
        let clock = VirtualClock()   // moved a stall interval on whenever all is quiet: a lost frame costs no real time
        let ether = InMemoryEther(clock: clock)
        var conditions = LinkConditions()
        switch path {
        case .gattWithLoss: conditions.notificationLossRate = 0.03
        case .channels: conditions.channel = .open(maximumSDU: 65535)
        }
        await ether.setConditions(conditions)
        let devices = try await HandoffFixtures.devices(["mac"] + Self.receiverNames, on: ether,
                                                        declaredTypes: [noteType])
        let source = devices[0]
        let receivers = Array(devices.dropFirst())
        var updates: [AsyncStream<RemoteActivity>] = []
        for receiver in receivers { updates.append(await receiver.engine.availabilityUpdates()) }

        let sourceDelegate = RecordingActivityDelegate()
        let activity = UserActivity(activityType: noteType)
        activity.delegate = sourceDelegate
        activity.title = "Fan-out"
        activity.userInfo = ["blob": .data(Self.payload)]
        try await activity.becomeCurrent(in: source.engine)
        var remotes: [RemoteActivity] = []
        for stream in updates { remotes.append(try await first(stream)) }

        let continues = zip(receivers, remotes).map { ($0.0, $0.1) }
        let outcomes = try await onVirtualTime(clock, of: ether, step: source.engine.configuration.stallInterval) {
            await withTaskGroup(of: (String, ContinuationOutcome).self) { group in
                for (receiver, remote) in continues {
                    group.addTask { (receiver.name, await receiver.engine.continueActivity(remote)) }
                }
                return await group.reduce(into: [String: ContinuationOutcome]()) { $0[$1.0] = $1.1 }
            }
        }
        for name in Self.receiverNames {
            let outcome = try #require(outcomes[name])
            #expect(outcome.activity?.userInfo["blob"] == .data(Self.payload), "\(name): \(outcome)")
            #expect(outcome.activity?.title == "Fan-out", "\(name)")
        }
        // Each receiver's DONE reaches the source after its payload: wait for all eight (a guard, not a timing).
        for _ in 0..<2000 where sourceDelegate.wasContinuedCount < receivers.count {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(sourceDelegate.wasContinuedCount == receivers.count, "the source heard of each continue once")
        for device in devices { await device.engine.stop() }
    }
}
