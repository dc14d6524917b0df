import FoundationEssentials
import HandoffShared

/// HandoffKit's one source of time: every wait, deadline and timestamp of the engine, the share inbox and pairing
/// reads it from here. `RealClock` in production (`HandoffConfiguration.clock`'s default); HandoffTesting's
/// `VirtualClock` in tests, where time moves only when the test advances it.
public protocol HandoffClock: MonotonicClock {
    /// Now on the wall clock, for timestamps kept on disk or compared with an activity's `expirationDate`.
    var date: Date { get }
}

/// The real clock: `SystemClock` (`ContinuousClock`) for the time line and waits, `Date()` for the wall clock. It
/// holds no state.
public struct RealClock: HandoffClock {
    /// The real clock.
    public init() {}

    /// The time since the system's `ContinuousClock` epoch (boot).
    public var now: HandoffInstant { SystemClock().now }

    /// `Date()`.
    public var date: Date { Date() }

    /// `SystemClock.sleep(until:)`.
    public func sleep(until deadline: HandoffInstant) async throws(CancellationError) {
        try await SystemClock().sleep(until: deadline)
    }
}
