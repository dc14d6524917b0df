import FoundationEssentials
import HandoffKit

/// How the daemon shares: what it takes into its inbox, and how long and how big its outbox items may be.
public struct ShareSettings: Sendable {
    /// Whether this device takes pushes from its paired devices, and so advertises a presence beacon while no
    /// activity is current (default true).
    public var acceptsShares = true
    /// The inbox's size limit per item and quota (defaults 4 GB and 8 GB; `handoffd --max-item`, `--inbox-quota`).
    package var inbox = ShareLimits()
    /// Largest item the outbox takes (default 4 GB, `ShareLimits.largestItem`, the most a push carries;
    /// `handoffd --max-item`). Over the fast lane that is a minute or less; over Bluetooth alone 1 MiB takes
    /// 3-4 s on an L2CAP channel and a minute or more over GATT (Docs/usage.md has the rates). The outbox spools
    /// the item to disk and the push reads it from there record by record: no side holds an item in memory.
    public var maximumItemSize = ShareLimits.largestItem
    /// Bytes the outbox may hold in all (default 8 GB, `handoffd --outbox-quota`): every pending item's bytes, and
    /// for every item listed (history included) its names and ``ShareLimits/entryOverhead``. A share that does
    /// not fit is refused with `OutboxFull`; the items already in the outbox are kept.
    public var outboxQuota = 2 * ShareLimits.largestItem
    /// How long the outbox keeps retrying an item before it fails it (default 24 h).
    public var deadline: TimeInterval = 24 * 3600
    /// How often pending items are retried when no beacon of their device arrives (default 60 s).
    public var retryInterval: Duration = .seconds(60)
    /// After an attempt that had to wait (the device away, the link dropped, an attempt abandoned), the next try
    /// comes this soon, doubling with each further one up to `retryInterval` (default 5 s): a receiver that comes
    /// back is found within seconds, one that stays away costs a try a minute.
    public var retryBackoff: Duration = .seconds(5)
    /// An attempt that moves no byte for this long is abandoned and the item waits for the next try (default
    /// 90 s): a receiver that hangs mid-attempt (a stopped process, a stuck bluetoothd) must not hold the outbox.
    public var attemptStallLimit: Duration = .seconds(90)
    /// Shares from standard input (`handoff share -`, `ShareStream`) read at once (default 4). Each holds a thread
    /// of the daemon until its stream ends, which is when its writer says so, however long that takes (`tar c … |
    /// handoff share -`); one more is refused with `Busy` at once, and the ones being read go on.
    public var maximumOpenStreams = 4
    /// Delivered, failed and cancelled items stay listed this long (default 7 days).
    public var historyLifetime: TimeInterval = 7 * 24 * 3600

    /// The defaults above.
    public init() {}
}
