import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

/// Thrown when an awaited event never comes (a guard against hangs, not a timing assertion).
struct TimedOut: Error {}

/// The first element of `stream`, or `TimedOut` after a generous guard delay.
func first<T: Sendable>(_ stream: AsyncStream<T>, guardDelay: Duration = .seconds(20)) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: guardDelay)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw TimedOut() }
        return value
    }
}

let noteType = "org.handoff.note"
let otherType = "org.handoff.browse"

/// Two paired devices, "mac" (source) and "pc" (receiver), with a started engine each. `receiver` adjusts the
/// receiver's configuration only (declared types, limits).
func makePair(ether: InMemoryEther = InMemoryEther(), configure: (inout HandoffConfiguration) -> Void = { _ in },
              receiver adjust: ((inout HandoffConfiguration) -> Void)? = nil) async throws
    -> (source: SimulatedDevice, receiver: SimulatedDevice, ether: InMemoryEther) {
    let devices = try await HandoffFixtures.devices(["mac", "pc"], on: ether, declaredTypes: [noteType, otherType],
                                                    configure: configure)
    var receiver = devices[1]
    if let adjust {
        await receiver.engine.stop()
        var configuration = receiver.engine.configuration
        adjust(&configuration)
        let radio = ether.makeRadio(address: "sim:pc2")
        let engine = try HandoffEngine(configuration: configuration, trust: receiver.store, radio: radio,
                                       delegate: receiver.delegate)
        try await engine.start()
        receiver = SimulatedDevice(name: "pc", radio: radio, engine: engine, delegate: receiver.delegate,
                                   store: receiver.store)
    }
    return (devices[0], receiver, ether)
}

/// Makes `activity` current on `source` and returns the availability `receiver` sees.
func offer(_ activity: UserActivity, from source: SimulatedDevice, to receiver: SimulatedDevice) async throws
    -> RemoteActivity {
    let updates = await receiver.engine.availabilityUpdates()
    try await activity.becomeCurrent(in: source.engine)
    return try await first(updates)
}

/// A stranger ("sim:eve") connected to a source that offers a secret note, and a REQUEST for that note forged
/// without the group key (its MAC made up, its nonce `strangerNonce`). Keep `devices` alive for the test.
func strangerAtASecret(on ether: InMemoryEther) async throws
    -> (link: any RadioLink, forged: TransferFrame, devices: [SimulatedDevice]) {
    let (source, receiver, _) = try await makePair(ether: ether)
    let activity = UserActivity(activityType: noteType)
    activity.userInfo = ["secret": "do not leak"]
    _ = try await offer(activity, from: source, to: receiver)
    let last = await source.engine.lastSequence
    let sequence = try #require(last)
    let link = try await ether.makeRadio(address: "sim:eve").connect(to: source.radio.address)
    let forged = TransferFrame.request(sequence: sequence, nonce: strangerNonce, mac: [UInt8](repeating: 0xAA, count: 16))
    return (link, forged, [source, receiver])
}

/// The nonce of `strangerAtASecret`'s forged REQUEST.
let strangerNonce = Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8])!

extension ContinuationOutcome {
    /// The continued activity, or nil.
    var activity: UserActivity? {
        if case .continued(let activity, _, _) = self { activity } else { nil }
    }

    /// The failure, or nil.
    var error: HandoffError? {
        if case .failed(let error) = self { error } else { nil }
    }
}

/// Returns once `ether` has gone quiet: its counters unchanged over a few milliseconds, so the frames that were
/// moving have landed (a settling pause, never a timeout of the code under test).
func quiet(_ ether: InMemoryEther) async throws {
    var last = await ether.statistics
    while true {
        try await Task.sleep(for: .milliseconds(3))
        let now = await ether.statistics
        if now == last { return }
        last = now
    }
}

/// Runs `operation` on `clock`'s virtual time: whenever `ether` is quiet, `ready()` holds and some task waits on the
/// clock, moves the clock on by `step`, so each timeout in `operation` passes at once instead of being waited for.
/// Throws `TimedOut` after `maximumSteps` steps, or when nothing is ready for `guardDelay` of real time (guards
/// against a timeout that never fires, not timing assertions).
func onVirtualTime<T: Sendable>(_ clock: VirtualClock, of ether: InMemoryEther, step: Duration,
                                maximumSteps: Int = 200, guardDelay: Duration = .seconds(20),
                                ready: @escaping @Sendable () async -> Bool = { true },
                                _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            let deadline = ContinuousClock.now + guardDelay
            for _ in 0..<maximumSteps {
                while true {
                    guard ContinuousClock.now < deadline else { return nil }
                    try await quiet(ether)
                    if clock.sleeperCount > 0, await ready() { break }
                }
                clock.advance(by: step)
            }
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw TimedOut() }
        return value
    }
}
