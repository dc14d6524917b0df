/// Counters the in-memory ether keeps, for assertions and measurements.
public struct InMemoryStatistics: Sendable, Equatable {
    /// Notifications delivered to a central.
    public var notificationsDelivered = 0
    /// Notifications lost on purpose (loss rate or drop-all).
    public var notificationsLost = 0
    /// Value bytes in delivered notifications.
    public var notifiedBytes = 0
    /// Writes delivered to a peripheral.
    public var writesDelivered = 0
    /// Successful connections.
    public var connections = 0
    /// Links dropped by fault injection.
    public var injectedDisconnections = 0
    /// Advertisements broadcast (including rotations).
    public var advertisements = 0

    /// All zero.
    public init() {}
}
