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
    /// While true, `connect` does not return, and ignores cancellation: a call hung on a peer that stopped
    /// answering (its process stopped, its bluetoothd stuck). Setting it back to false lets waiting connects on.
    public var connectHangs = false
    /// While true, writes wait (and give up only when cancelled), as a channel whose peer's adapter went off
    /// waits for credits that never come, with no disconnection reported.
    public var writesHang = false
    /// When true, a link stays its radio's until its owner calls `disconnect()`, even after it dropped, as
    /// HandoffBlueZ's device lease keeps it: a connect to a peer while this radio's earlier link to it was never
    /// disconnected is refused (`RadioError.failed`; BlueZ waits for it for ever, which a test cannot), and
    /// counted in `InMemoryStatistics.connectsBehindAnOpenLink`. Default false: links are independent.
    public var linksHeldUntilDisconnected = false
    /// Whether links are L2CAP-like channels (default nil: GATT only, no channel modelled, as before).
    /// `.open(maximumSDU:)` makes every new link a channel: reliable, ordered, frames up to that size both ways.
    /// The other cases make new links GATT links that report that fallback.
    public var channel: ChannelAvailability?
    /// Probability in 0...1 that a channel SDU is lost silently (default 0). Kernels before 6.10 can drop an SDU
    /// when a slow reader's receive buffer is full; the sealed stream's offsets must catch it.
    public var channelLossRate = 0.0
    /// How many of the next links are deaf (default 0): the peripheral's notifications to them are lost, all of
    /// them, while writes still arrive, as a channel whose SDUs the kernel took and never handed over (seen in the
    /// VM right after a bluetoothd restart). Each new link takes one, until none is left.
    public var deafLinks = 0

    /// When true, a notification to one central reaches every central subscribed to that peripheral over GATT, as
    /// BlueZ's `PropertiesChanged` on the data characteristic does (default false: only the central it is for).
    public var broadcastNotifications = false
    /// After this many more writes are delivered, every write is lost (default nil: none is), as a sender whose
    /// radio went quiet mid-push while its peer stays up.
    public var loseWritesAfter: Int?

    /// Ideal conditions: MTU 247, no loss, no delay, no disconnection.
    public init() {}
}

/// What an in-memory connection finds when it tries the channel first.
public enum ChannelAvailability: Sendable, Equatable {
    /// The service publishes a channel taking SDUs of up to `maximumSDU` bytes (65535 at most).
    case open(maximumSDU: Int)
    /// The service publishes none (an older build).
    case notPublished
    /// A PSM is published but nothing listens on it.
    case refused
    /// The connecting device's kernel has no LE connection-oriented channels.
    case unsupported
}
