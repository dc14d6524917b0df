import DBus
import HandoffClient

/// The names and shapes of the handoff daemon's D-Bus API (Docs/dbus-api.md), shared by the daemon and its client.
public enum HandoffBusAPI {
    /// The daemon's well-known name.
    public static let busName: BusName = "org.handoff.Handoff1"
    /// The one object the daemon exports.
    public static let objectPath: ObjectPath = "/org/handoff/Handoff1"
    /// The daemon's interface.
    public static let interface: InterfaceName = "org.handoff.Handoff1"
    /// Every error the daemon replies with starts with this prefix (`org.handoff.Error.AccessDenied`, …).
    public static let errorPrefix = "org.handoff.Error."
    /// The signature of an activity summary: id, type, title, device, age in seconds, size in bytes.
    public static let summarySignature = Signature(of: ActivitySummary.self)
    /// The signature of a paired device: id, name, in range, seconds since last seen (negative: never).
    public static let deviceSignature = Signature(of: DeviceInfo.self)

    /// Method names.
    public enum Method {
        /// `Status() → a{sv}`.
        public static let status: MemberName = "Status"
        /// `SetCurrentActivity(s type, s title, ay userInfo) → s id`.
        public static let setCurrentActivity: MemberName = "SetCurrentActivity"
        /// `UpdateCurrentActivity(s id, s title, ay userInfo)`.
        public static let updateCurrentActivity: MemberName = "UpdateCurrentActivity"
        /// `ResignCurrentActivity(s id, t graceMilliseconds)`.
        public static let resignCurrentActivity: MemberName = "ResignCurrentActivity"
        /// `AvailableActivities() → a(ssssdt)`.
        public static let availableActivities: MemberName = "AvailableActivities"
        /// `WatchActivities()`: ActivityAppeared/ActivityDisappeared are sent to the caller from now on.
        public static let watchActivities: MemberName = "WatchActivities"
        /// `Continue(s id) → ((ssssdt) summary, s type, s title, ay userInfo, a{ss} path)`, with Progress signals;
        /// `path` says how the bytes came: `transport` (`l2cap`, `gatt`) and, after a fallback, `fallback`.
        public static let continueActivity: MemberName = "Continue"
        /// `Devices() → a(ssbd)`.
        public static let devices: MemberName = "Devices"
        /// `Pair(s deviceName, u timeoutSeconds) → (ssbd)`, with PairingCode signals.
        public static let pair: MemberName = "Pair"
        /// `AcceptPairing(u timeoutSeconds) → (ssbd)`, with PairingCode signals.
        public static let acceptPairing: MemberName = "AcceptPairing"
        /// `ConfirmPairing(s code, b accept)`.
        public static let confirmPairing: MemberName = "ConfirmPairing"
        /// `Unpair(s device)`.
        public static let unpair: MemberName = "Unpair"
    }

    /// The signals, each with its arguments' Swift types, which the daemon emits and the client reads; every
    /// signal is sent to one caller only (a unicast signal).
    public enum Signal {
        /// `ActivityAppeared((ssssdt) activity)`, to connections that called WatchActivities.
        public static let activityAppeared = SignalDeclaration(
            "ActivityAppeared", of: ActivitySummary.self, argumentNames: ["activity"])
        /// `ActivityDisappeared((ssssdt) activity)`, to connections that called WatchActivities.
        public static let activityDisappeared = SignalDeclaration(
            "ActivityDisappeared", of: ActivitySummary.self, argumentNames: ["activity"])
        /// `Progress(s id, s phase, t receivedBytes, t totalBytes)`, to the caller of Continue.
        public static let progress = SignalDeclaration(
            "Progress", of: String.self, String.self, UInt64.self, UInt64.self,
            argumentNames: ["id", "phase", "receivedBytes", "totalBytes"])
        /// `PairingCode(s deviceName, s code)`, to the caller of Pair or AcceptPairing.
        public static let pairingCode = SignalDeclaration(
            "PairingCode", of: String.self, String.self, argumentNames: ["deviceName", "code"])
    }
}
