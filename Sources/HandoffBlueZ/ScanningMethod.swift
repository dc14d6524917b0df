/// How a ``BlueZRadio`` listens for beacons (``BlueZRadioOptions/scanning``).
public enum ScanningMethod: Sendable, Equatable {
    /// An `org.bluez.AdvertisementMonitor1` on the beacon's manufacturer data: the controller scans passively and
    /// bluetoothd tells us only about matching devices. Falls back to ``discovery`` when bluetoothd has no
    /// monitor manager (5.66 needs `-E`) or does not activate the monitor.
    case monitor
    /// A filtered discovery (`Transport=le`, `DuplicateData=true`): active scanning, and every device nearby
    /// becomes a Device1 and signals on the bus.
    case discovery
}

/// What a ``BlueZRadio`` scans with right now (``BlueZRadio/scanningState``).
public enum ScanningState: Sendable, Equatable, CustomStringConvertible {
    /// An advertisement monitor is active; `offloaded` when the controller matches the patterns itself.
    case monitor(offloaded: Bool)
    /// A discovery runs; `fallback` says why the monitor is not used, nil when discovery was asked for.
    case discovery(fallback: String?)

    /// `monitor (passive, filtered by bluetoothd)`, `discovery (fallback: …)`, as `handoff status` shows it.
    public var description: String {
        switch self {
        case .monitor(let offloaded):
            "advertisement monitor (passive, filtered by " + (offloaded ? "the controller)" : "bluetoothd)")
        case .discovery(nil): "discovery"
        case .discovery(let reason?): "discovery (fallback: \(reason))"
        }
    }
}
