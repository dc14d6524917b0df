/// How a `HandoffEngine` behaves. Every property is documented with its default.
public struct HandoffConfiguration: Sendable {
    /// The app's activity types (NSUserActivityTypes).
    public var declaredTypes: DeclaredActivityTypes
    /// Hard payload limit in bytes, checked on the source before advertising and on the target before fetching.
    /// Default 1 MiB (Apple's soft guidance is 3 KB).
    public var maximumPayloadSize = 1 << 20
    /// Plaintext bytes per sealed record (default 4096; 256...65535, receivers refuse smaller records).
    public var recordSize = 4096
    /// How long the client waits without progress before re-asking (default 2 s). At the second such wait in a
    /// row it moves to a new link, once; after `maximumStalls` + 1 in a row the continuation fails with
    /// `remoteApplicationTimedOut`.
    public var stallInterval: Duration = .seconds(2)
    /// Bytes of the sealed stream the client asks for at a time (default 16 KiB; 0 asks for everything at once).
    /// The source notifies exactly what was asked, so this bounds what waits in the source's bluetoothd queue:
    /// asked for all at once, a large transfer overflowed it on real BLE and most of it had to be fetched again.
    public var fetchWindow = 16 * 1024
    /// `fetchWindow` on an L2CAP channel (default 64 KiB; 0 asks for the whole stream at once). A channel's
    /// credits hold the source back; a window bounds what waits in the source's socket. (In the VM a 1 MiB continue
    /// over the channel still stalls with 4610, with this window as with the whole stream; not understood yet.)
    public var channelFetchWindow = 64 * 1024
    /// Consecutive waits without progress tolerated (default 3); the next one fails.
    public var maximumStalls = 3
    /// Reconnections tried after the link drops mid-transfer, or stays silent (default 3); then
    /// `connectionUnavailable`.
    public var maximumReconnects = 3
    /// How long a continuation may go without hearing from the source before it fails with
    /// `remoteApplicationTimedOut` (default 60 s), wherever it is waiting: connecting, relinking, following a
    /// rotated address, or for the next bytes. A bound on silence, not on length: a transfer that keeps moving runs
    /// to its end however slow the radio is, while one whose device has gone fails here rather than past the
    /// caller's own timeout (the CLI's continue waits 90 s for a word from the daemon).
    public var continuationPatience: Duration = .seconds(60)
    /// Re-seal the beacon with a fresh nonce this often while an activity is current (default 15 min; nil = never).
    public var beaconRotationInterval: Duration? = .seconds(900)
    /// First sequence number to advertise; the daemon persists `HandoffEngine.lastSequence` and passes it back
    /// + 1 so sequences never repeat. Default: seconds since 1970 (monotonic across restarts in practice).
    public var initialSequence: UInt32?
    /// Transfers the source keeps for resumption, the most recently used (default 8): as many receivers as this can
    /// fetch the current activity at once.
    public var cachedTransfers = 8
    /// In pairing mode, how long a device that started pairing may go quiet before its code is shown (default
    /// 15 s). Then it alone is dropped, which frees its place among the exchanges pairing mode answers at once;
    /// the other devices are answered meanwhile. (Once the code is shown, the users decide, and the initiator's own
    /// timeout applies.)
    public var pairingQuietLimit: Duration = .seconds(15)
    /// How long after answering a central that wrote what no client of ours writes its link is dropped (default
    /// 1 s; `Gate.Writer`): long enough for the refusal to reach a device that unpaired us, short for a stranger.
    public var strangerDropGrace: Duration = .seconds(1)
    /// How long the device behind a dropped central is kept away afterwards: its links ended as soon as they are
    /// made (default 30 s; zero: not at all). A stranger that writes garbage then costs bare connections instead of
    /// a link with service discovery and writes every few seconds for the radio and this device's CPU to answer
    /// (measured on the emulated radio: dropped 6 to 7 times a minute without it). The price: a stranger that takes
    /// a paired device's address can keep that device away for a cooldown per write, as jamming the radio would.
    public var strangerCooldown: Duration = .seconds(30)
    /// The fast lane: big transfers move to a TCP connection over a network both machines already share
    /// (Docs/protocol.md §9). Nil (the default) keeps everything on the radio.
    package var fastLane: FastLane?
    /// Where the engine reads time: its waits (stalls, rotation, pairing), expiry checks and timestamps
    /// (default `RealClock()`; tests pass HandoffTesting's `VirtualClock`).
    public var clock: any HandoffClock = RealClock()

    /// A configuration with the defaults above.
    public init(declaredTypes: DeclaredActivityTypes) {
        self.declaredTypes = declaredTypes
    }
}
