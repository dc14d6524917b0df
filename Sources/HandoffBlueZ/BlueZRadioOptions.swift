import BlueZ

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
    /// Connect attempts when the kernel aborts one locally (`le-connection-abort-by-local`). Default 4.
    public var connectAttempts = 4
    /// How long connecting waits for a peer bluetoothd does not know (yet). bluetoothd forgets unconnected
    /// devices when the adapter is switched off or bluetoothd restarts, and knows them again from their next
    /// advertisement, so a continue right after either waits for that instead of failing. Default 20 s.
    public var unknownPeerWait: Duration = .seconds(20)
    /// How long to wait for `ServicesResolved` after connecting. Default 20 s.
    public var servicesResolvedTimeout: Duration = .seconds(20)
    /// Switch the adapter on when the radio is created. Default true. The radio never switches it on afterwards:
    /// an adapter the user switches off (`bluetoothctl power off`, rfkill, a settings panel) stays off, and
    /// scanning resumes by itself when it is switched on again. A failure to switch it on is logged, not thrown.
    public var powerOn = true
    /// How long to wait for the adapter at creation and after bluetoothd restarts. Default 30 s.
    public var adapterTimeout: Duration = .seconds(30)
    /// The ATT MTU assumed when bluetoothd gives none (neither the `mtu` option nor `GattCharacteristic1.MTU`).
    /// Default 23, the ATT minimum.
    public var fallbackMTU = 23
    /// Where diagnostics go (nil: nowhere).
    public var log: (@Sendable (String) -> Void)?
    /// Where the few lines a user should read go: how the radio scans, and why it fell back to a discovery
    /// (once per change). nil: to `log`.
    public var notice: (@Sendable (String) -> Void)?

    /// The defaults.
    public init() {}
}
