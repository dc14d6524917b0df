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
    /// Successful connections that opened a channel (a subset of `connections`).
    public var channelConnections = 0
    /// Connects refused because the same radio's earlier link to the peer was never disconnected
    /// (`LinkConditions.linksHeldUntilDisconnected`).
    public var connectsBehindAnOpenLink = 0
    /// Connections refused because the peripheral keeps the central away after dropping it
    /// (`TransferService.drop(_:keepingAwayFor:)`).
    public var connectsKeptAway = 0
    /// Centrals whose links a transfer service dropped (`TransferService.drop(_:keepingAwayFor:)`: the gate's strangers).
    public var droppedCentrals = 0
    /// The longest frame delivered either way.
    public var largestFrame = 0

    /// All zero.
    public init() {}
}
