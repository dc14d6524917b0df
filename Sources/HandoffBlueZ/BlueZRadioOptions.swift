import BlueZ
import HandoffKit

/// How a ``BlueZRadio`` uses BlueZ. The defaults suit a real bluetoothd; every property says its default.
public struct BlueZRadioOptions: Sendable {
    /// Set the advertisement's `Discoverable` (LE General Discoverable flag). Default false: the protocol's beacon
    /// needs no discoverability, because scanners use a discovery filter. bluezoo (tier 1) only reports
    /// discoverable advertisements, so its tests set it.
    public var discoverable = false
    /// How a new beacon reaches bluetoothd: PropertiesChanged on the exported LEAdvertisement1 (default; bluetoothd
    /// 5.66 re-reads the data in place) or UnregisterAdvertisement + RegisterAdvertisement.
    public var advertisementUpdate: AdvertisementRegistration.UpdateMethod = .propertiesChanged
    /// How the radio listens for beacons. Default ``ScanningMethod/monitor``: an advertisement monitor on the
    /// beacon's manufacturer data (passive scanning, only matching devices reach us), falling back to a
    /// discovery when bluetoothd offers none or refuses it; ``ScanningMethod/discovery`` always uses a discovery.
    public var scanning: ScanningMethod = .monitor
    /// Test option: while a discovery runs (the fallback, or `scanning = .discovery`), restart it (StopDiscovery +
    /// StartDiscovery, keeping the filter) this often; nil (the default) never. btvirt reports an advertiser only
    /// when scanning is enabled, and under emulation can lose that one report, so the VM scenarios turn it on;
    /// real controllers with `DuplicateData` report every advertisement and need no restarts.
    public var discoveryRefresh: Duration?
    /// While an LE connection is being made and the radio's own discovery runs, restart that discovery this long
    /// into the connection, then every second until it is made; nil never. The kernel makes the connection when
    /// an advertising report from the peer arrives, and a discovery with the controller's duplicate filter
    /// reports each advertiser once, when it starts: without a restart the connection waits for the next one
    /// (measured in the VM: 2.8 s of a 3.5 s continue). A restart enables scanning afresh, so the report comes at
    /// once. The advertisement monitor scans without that filter and needs none. Default 200 ms, which leaves
    /// bluetoothd time to hand the connection to the kernel first. `HANDOFF_CONNECT_NUDGE=0` turns it off.
    public var connectNudge: Duration? = .milliseconds(200)
    /// Connect attempts while the connection cannot go ahead for a moment (`Device1.connect(attempts:)`: the
    /// kernel aborted it locally, or refused it because the controller's one LE connection attempt was taken),
    /// 500 ms apart and doubling. Default 6, about 15 s in all: in the many-machine tier a receiver's kernel kept
    /// refusing (EBUSY) for more than the 3.5 s that 4 attempts wait, while an attempt of its own to the same
    /// source (a channel to its known PSM) was being torn down.
    public var connectAttempts = 6
    /// How long connecting waits for a peer bluetoothd does not know (yet). bluetoothd forgets unconnected
    /// devices when the adapter is switched off or bluetoothd restarts, and knows them again from their next
    /// advertisement, so a continue right after either waits for that instead of failing. Default 20 s.
    public var unknownPeerWait: Duration = .seconds(20)
    /// How long after bluetoothd reports `Discovering` false the radio checks again and, when it is still false
    /// and the radio wants to scan, starts its discovery again. Default 1 s: the signal may belong to a restart
    /// of the radio's own that has finished since.
    public var discoveryLostGrace: Duration = .seconds(1)
    /// The longest pause between two attempts to start discovery again while the adapter is on and bluetoothd
    /// keeps refusing. Default 10 s. The radio never stops trying while it has scanners.
    public var discoveryRetryLimit: Duration = .seconds(10)
    /// How long to wait for `ServicesResolved` after connecting. Default 20 s.
    public var servicesResolvedTimeout: Duration = .seconds(20)
    /// Switch the adapter on when the radio is created. Default true. The radio never switches it on afterwards:
    /// an adapter the user switches off (`bluetoothctl power off`, rfkill, a settings panel) stays off, and
    /// scanning resumes by itself when it is switched on again. A failure to switch it on is logged, not thrown.
    public var powerOn = true
    /// How long to wait for the adapter at creation and after bluetoothd restarts. Default 30 s.
    public var adapterTimeout: Duration = .seconds(30)
    /// ``FollowingBlueZRadio``: how long a change of adapters must last before the radio moves (``AdapterChoice``).
    /// Default 2 s: longer than bluetoothd takes to register its adapters one after another at start, or to remove
    /// them before it leaves the bus, so neither moves the radio.
    public var adapterSettle: Duration = .seconds(2)
    /// The ATT MTU assumed when bluetoothd gives none (neither the `mtu` option nor `GattCharacteristic1.MTU`).
    /// Default 23, the ATT minimum.
    public var fallbackMTU = 23
    /// Where diagnostics go (nil: nowhere).
    public var log: (@Sendable (String) -> Void)?
    /// Where the radio's waits, deadlines and setup timings read time. Default the real clock; tests may give
    /// HandoffTesting's `VirtualClock`, as they do the engine (`HandoffConfiguration.clock`).
    public var clock: any HandoffClock = RealClock()
    /// How transfer frames travel. Default `.auto`: an L2CAP LE credit-based channel to the PSM the peer publishes,
    /// GATT when it publishes none, refuses the channel or this kernel has no LE CoC. The source side publishes
    /// its PSM unless this is `.gatt` (then it behaves as a build from before the channel).
    public var transport: Transport = .auto
    /// The largest SDU this side takes on a channel (`BT_RCVMTU`, so also the largest the peer sends it), 23...65535.
    /// Default 8192. The kernel sends an SDU only when all its K-frames fit the socket's send buffer at once: a
    /// 64 KiB SDU at an MPS of ~250 is ~265 buffers, more than the default 208 KiB send buffer (`wmem_max`)
    /// holds, so it would wait for room forever (measured in the VM: the 64 KiB continue stalled with 4610).
    /// 8 KiB SDUs are two sealed 4 KiB records per DATA frame and as fast as l2test's 4 KiB ones.
    public var channelMTU = 8192
    /// How long the LE connection of a closed channel stays up for the next link before it is disconnected.
    /// Default 10 s: a second continue right after the first opens its channel at once instead of waiting for
    /// a disconnection and connecting afresh. Zero disconnects at once. A link never reuses a connection whose
    /// disconnection has begun.
    public var channelLinger: Duration = .seconds(10)
    /// How long opening a channel may take before it counts as failed (and `.auto` falls back). Default 10 s.
    public var channelConnectTimeout: Duration = .seconds(10)
    /// Testing only: publish this PSM instead of the listener's, so that a peer finds nothing listening on it
    /// (the `refused` fallback). Default nil.
    public var publishedPSM: UInt16?
    /// Where the few lines a user should read go: how the radio scans, and why it fell back to a discovery
    /// (once per change). nil: to `log`.
    public var notice: (@Sendable (String) -> Void)?

    /// The defaults.
    public init() {}

    /// Sets ``connectNudge`` from `HANDOFF_CONNECT_NUDGE` in `environment`: `0` turns it off, another whole
    /// number is milliseconds; unset leaves it. Anything else is an error, so a bench never measures what it did
    /// not ask for.
    public mutating func setConnectNudge(fromEnvironment environment: [String: String]) throws(RadioError) {
        guard let text = environment["HANDOFF_CONNECT_NUDGE"], !text.isEmpty else { return }
        guard let milliseconds = Int(text), milliseconds >= 0 else {
            throw RadioError(.failed, "HANDOFF_CONNECT_NUDGE=\(text) is not a whole number of milliseconds")
        }
        connectNudge = milliseconds == 0 ? nil : .milliseconds(milliseconds)
    }

    /// The path for transfer frames.
    public enum Transport: String, Sendable, CaseIterable {
        /// The channel when the peer publishes a PSM and the kernel opens it; GATT otherwise (said in the link).
        case auto
        /// GATT only, on both sides: no listener and no PSM characteristic (an older build, for comparison).
        case gatt
        /// The channel only: a peer without one is an error (`unreachable`), not a fallback.
        case l2cap

        /// `HANDOFF_TRANSPORT` from `environment` (`auto`, `gatt`, `l2cap`); nil when unset. An unknown value
        /// is reported in `error` so callers can refuse it clearly.
        public static func fromEnvironment(_ environment: [String: String]) throws -> Transport? {
            guard let text = environment["HANDOFF_TRANSPORT"], !text.isEmpty else { return nil }
            guard let transport = Transport(rawValue: text.lowercased()) else {
                throw RadioError(.failed, "HANDOFF_TRANSPORT=\(text) is none of auto, gatt, l2cap")
            }
            return transport
        }
    }
}
