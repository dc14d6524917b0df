import FoundationEssentials
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
    /// The Bluetooth controller in use (`hci0`), reported by Status; nil when the radio is not a controller.
    public var adapter: String?
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
    /// Whether the radio's controller is powered, for Status (default: always true).
    public var powered: @Sendable () async -> Bool = { true }
    /// How the radio scans for beacons, for Status (`advertisement monitor (…)`, `discovery (fallback: …)`);
    /// nil leaves it out.
    public var scanning: @Sendable () async -> String? = { nil }

    /// The default: `/var/lib/handoff`, the host name, handoff's own activity types (note, clipboard, web page,
    /// terminal).
    public init(stateDirectory: URL = URL(fileURLWithPath: "/var/lib/handoff"),
                deviceName: String = ProcessInfo.processInfo.hostName, adapter: String? = nil) throws {
        self.stateDirectory = stateDirectory
        self.deviceName = deviceName
        self.adapter = adapter
        self.handoff = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes(
            ["org.handoff.note", "org.handoff.clipboard", "org.handoff.web", "org.handoff.terminal"]))
    }
}
