import FoundationEssentials
import HandoffClient
import HandoffKit

/// How a ``HandoffDaemon`` runs: where it keeps its state, what it is called, what it declares.
public struct DaemonConfiguration: Sendable {
    /// The daemon's version, reported by Status.
    public static let version = "0.1.0"

    /// Where the trust store and the daemon state live (default `/var/lib/handoff`). Created `0700` if missing.
    public var stateDirectory: URL
    /// The owner the administrator set (`handoffd --owner USER`): written to `owner.json` at start, replacing a
    /// recorded owner. Nil (the default) keeps the recorded owner, or lets the first `handoff pair` claim the daemon.
    public var owner: UInt32?
    /// This device's name, shown on the other devices (at most 16 UTF-8 bytes reach a pairing beacon).
    public var deviceName: String
    /// The Bluetooth controller in use now, for Status. Asked at every Status call: the radio may move to another
    /// controller, or have none, while the daemon runs (handoffd's radio follows adapters as they come and go).
    public var adapter: @Sendable () async -> AdapterReport
    /// The engine's configuration: declared types, limits, timing. Its `initialSequence` is replaced by the
    /// persisted sequence + 1.
    public var handoff: HandoffConfiguration
    /// The daemon's one source of time, shared with its engine: every wait, deadline and timestamp of the daemon
    /// and the engine reads it (`RealClock()` by default; tests pass HandoffTesting's `VirtualClock`). It is
    /// `handoff.clock`, so the two can never differ.
    public var clock: any HandoffClock {
        get { handoff.clock }
        set { handoff.clock = newValue }
    }
    /// A paired device counts as in range when its last new beacon is younger than this (default 10 minutes).
    public var inRangeInterval: Duration = .seconds(600)
    /// Sharing: the inbox's limits, the outbox's deadline and size limit (Docs/dbus-api.md, "Sharing").
    public var share = ShareSettings()
    /// What the daemon adds to activities of a type before offering them (lifetime, webpageURL), by type.
    public var typeRules: [String: ActivityTypeRule] = ActivityTypeRule.defaults
    /// How the radio scans for beacons, for Status (`advertisement monitor (…)`, `discovery (fallback: …)`);
    /// nil leaves it out.
    public var scanning: @Sendable () async -> String? = { nil }

    /// The default: `/var/lib/handoff`, the host name, handoff's own activity types (note, clipboard, web page,
    /// terminal, what is playing, the file in the editor).
    /// `adapter` names a controller that is always there and on (nil: none); set ``adapter`` to report one that
    /// changes.
    public init(stateDirectory: URL = URL(fileURLWithPath: "/var/lib/handoff"),
                deviceName: String = ProcessInfo.processInfo.hostName, adapter: String? = nil) throws {
        self.stateDirectory = stateDirectory
        self.deviceName = deviceName
        self.adapter = { AdapterReport(name: adapter, powered: adapter != nil) }
        self.handoff = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(
            ["org.handoff.note", "org.handoff.clipboard", "org.handoff.web", "org.handoff.terminal",
             "org.handoff.media", "org.handoff.editor"]))
    }
}

extension DaemonConfiguration {
    /// What Status says of the Bluetooth controller in use (Docs/dbus-api.md, `Adapter`, `AdapterAddress`,
    /// `Powered`, `AdapterChoice`).
    public struct AdapterReport: Sendable, Equatable {
        /// Its name (`hci0`); nil when none is in use.
        public var name: String?
        /// Its address (`00:AA:01:00:00:00`), when known.
        public var address: String?
        /// Whether it is switched on (false when there is none).
        public var powered: Bool
        /// How it was chosen, or what the daemon waits for, in words (`BlueZ's default`, `waiting for an
        /// adapter`); nil leaves it unsaid.
        public var choice: String?

        /// A report of the controller `name` at `address`.
        public init(name: String?, address: String? = nil, powered: Bool, choice: String? = nil) {
            self.name = name
            self.address = address
            self.powered = powered
            self.choice = choice
        }
    }
}
