/// Faults and limits the in-memory ether applies to links. Change them at any time with
/// `InMemoryEther.setConditions(_:)`; they apply to every later operation.
public struct LinkConditions: Sendable {
    /// The ATT MTU every new link negotiates (default 247). Notifications longer than MTU-3 are refused.
    public var mtu = 247
    /// Probability in 0...1 that a notification is silently lost (default 0). Drawn from the ether's seeded generator.
    public var notificationLossRate = 0.0
    /// Delay applied before each write and notification is delivered (default none).
    public var delay: Duration?
    /// After this many more delivered notifications, every link drops (one-shot; default nil).
    public var disconnectAfterNotifications: Int?
    /// Together with `disconnectAfterNotifications`: the notifying device also becomes unreachable (it "left").
    public var vanishOnDisconnect = false
    /// When true, every notification is lost (the source seems to hang).
    public var dropAllNotifications = false

    /// Ideal conditions: MTU 247, no loss, no delay, no disconnection.
    public init() {}
}
