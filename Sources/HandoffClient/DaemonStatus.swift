/// The daemon's state, as printed by `handoff status --json`.
///
/// JSON: `{"adapter":"hci0","adapterAddress":"00:AA:01:00:00:00","adapterChoice":"BlueZ's default",
/// "availableActivities":1,"currentActivity":{…ActivitySummary…},"pairedDevices":2,"powered":true,
/// "scanning":"advertisement monitor (…)","version":"0.1.0"}`; `adapter`, `adapterAddress`, `currentActivity` and
/// `scanning` are absent when there is none, `adapterChoice` when the daemon does not say.
public struct DaemonStatus: Sendable, Equatable, Codable {
    /// The daemon's version.
    public var version: String
    /// The Bluetooth controller in use now (`hci0`), if any.
    public var adapter: String?
    /// Its address (`00:AA:01:00:00:00`), when the daemon says.
    public var adapterAddress: String?
    /// How the daemon chose it, or what it waits for while it has none (`BlueZ's default`, `in place of
    /// 00:AA:01:00:00:00 (away)`, `waiting for an adapter`), when the daemon says.
    public var adapterChoice: String?
    /// Whether that controller is powered.
    public var powered: Bool
    /// How many paired devices there are.
    public var pairedDevices: Int
    /// How many activities nearby devices offer the caller now.
    public var availableActivities: Int
    /// The caller's own current activity, if it has one.
    public var currentActivity: ActivitySummary?
    /// The app that offered the current activity: the name declared for its type, else the offering process's
    /// name. Chosen by a process, so shown escaped.
    public var currentActivityApp: String?
    /// How the daemon scans for beacons (`advertisement monitor (…)`, `discovery (fallback: …)`); absent from
    /// daemons that do not say.
    public var scanning: String?

    /// Creates a status.
    public init(
        version: String, adapter: String?, powered: Bool, pairedDevices: Int, availableActivities: Int,
        currentActivity: ActivitySummary?
    ) {
        self.version = version
        self.adapter = adapter
        self.powered = powered
        self.pairedDevices = pairedDevices
        self.availableActivities = availableActivities
        self.currentActivity = currentActivity
    }
}
