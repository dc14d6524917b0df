import Foundation

/// A point on a `HandoffClock`'s monotonic time line, for deadlines and durations. Compare only instants of one
/// clock.
public struct HandoffInstant: Comparable, Hashable, Sendable {
    /// The time since the clock's origin.
    public var offset: Duration

    /// The instant `offset` after the clock's origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// Whether `lhs` comes first.
    public static func < (lhs: HandoffInstant, rhs: HandoffInstant) -> Bool {
        lhs.offset < rhs.offset
    }

    /// The instant `duration` later.
    public static func + (instant: HandoffInstant, duration: Duration) -> HandoffInstant {
        HandoffInstant(offset: instant.offset + duration)
    }

    /// The time from this instant to `other` (negative when `other` is earlier).
    public func duration(to other: HandoffInstant) -> Duration {
        other.offset - offset
    }
}

/// HandoffKit's one source of time: every wait, deadline and timestamp of the engine, the share inbox and pairing
/// reads it from here. `RealClock` in production (`HandoffConfiguration.clock`'s default); HandoffTesting's
/// `VirtualClock` in tests, where time moves only when the test advances it.
public protocol HandoffClock: Sendable {
    /// Now on the monotonic time line.
    var now: HandoffInstant { get }
    /// Now on the wall clock, for timestamps kept on disk or compared with an activity's `expirationDate`.
    var date: Date { get }
    /// Returns once `deadline` has passed (at once if it already has). Throws `CancellationError` as soon as the
    /// calling task is cancelled, also when it was cancelled before the call.
    func sleep(until deadline: HandoffInstant) async throws(CancellationError)
}

extension HandoffClock {
    /// Returns once `duration` has passed from now; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws(CancellationError) {
        try await sleep(until: now + duration)
    }

    /// The time from `start` to now.
    public func duration(since start: HandoffInstant) -> Duration {
        start.duration(to: now)
    }
}

/// The real clock: `ContinuousClock` for the time line and waits, `Date()` for the wall clock. It holds no state.
public struct RealClock: HandoffClock {
    /// The real clock.
    public init() {}

    /// The time since the system's `ContinuousClock` epoch (boot).
    public var now: HandoffInstant {
        let clock = ContinuousClock()
        return HandoffInstant(offset: clock.systemEpoch.duration(to: clock.now))
    }

    /// `Date()`.
    public var date: Date { Date() }

    /// `ContinuousClock.sleep(until:)` at `deadline`.
    public func sleep(until deadline: HandoffInstant) async throws(CancellationError) {
        let clock = ContinuousClock()
        do {
            try await clock.sleep(until: clock.systemEpoch.advanced(by: deadline.offset))
        } catch {
            throw CancellationError()   // ContinuousClock's sleep fails only when the task is cancelled
        }
    }
}
