/// A point on a `MonotonicClock`'s time line, for deadlines and durations. Compare only instants of one clock.
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

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: HandoffInstant, rhs: HandoffInstant) -> Duration {
        lhs.offset - rhs.offset
    }

    /// The time from this instant to `other` (negative when `other` is earlier).
    public func duration(to other: HandoffInstant) -> Duration {
        other.offset - offset
    }
}

/// Monotonic time and waits on it: what every layer that waits or measures reads, so that one clock can be
/// injected from the top (HandoffKit's `HandoffClock` adds the wall clock). `SystemClock` in production;
/// HandoffTesting's `VirtualClock` in tests, where time moves only when the test advances it.
public protocol MonotonicClock: Sendable {
    /// Now on the monotonic time line.
    var now: HandoffInstant { get }
    /// Returns once `deadline` has passed (at once if it already has). Throws `CancellationError` as soon as the
    /// calling task is cancelled, also when it was cancelled before the call.
    func sleep(until deadline: HandoffInstant) async throws(CancellationError)
}

extension MonotonicClock {
    /// Returns once `duration` has passed from now; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws(CancellationError) {
        try await sleep(until: now + duration)
    }

    /// The time from `start` to now.
    public func duration(since start: HandoffInstant) -> Duration {
        start.duration(to: now)
    }
}

/// The system's monotonic clock: `ContinuousClock`, whose epoch is the boot. It holds no state.
public struct SystemClock: MonotonicClock {
    /// The system clock.
    public init() {}

    /// The time since the system's `ContinuousClock` epoch (boot).
    public var now: HandoffInstant {
        let clock = ContinuousClock()
        return HandoffInstant(offset: clock.systemEpoch.duration(to: clock.now))
    }

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
