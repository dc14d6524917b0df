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

    /// The methods, each with its arguments' and results' Swift types, which the daemon exports and the client
    /// calls: the signatures follow from the types, said once here.
    public enum Method {
        /// `Status() → a{sv}`.
        public static let status = MethodDeclaration("Status", out: [String: Variant].self, outputNames: ["status"])
        /// `SetCurrentActivity(s type, s title, ay userInfo) → s id`.
        public static let setCurrentActivity = MethodDeclaration(
            "SetCurrentActivity", in: String.self, String.self, [UInt8].self, out: String.self,
            inputNames: ["type", "title", "userInfo"], outputNames: ["id"])
        /// `UpdateCurrentActivity(s id, s title, ay userInfo)`.
        public static let updateCurrentActivity = MethodDeclaration(
            "UpdateCurrentActivity", in: String.self, String.self, [UInt8].self, inputNames: ["id", "title", "userInfo"])
        /// `ResignCurrentActivity(s id, t graceMilliseconds)`.
        public static let resignCurrentActivity = MethodDeclaration(
            "ResignCurrentActivity", in: String.self, UInt64.self, inputNames: ["id", "graceMilliseconds"])
        /// `AvailableActivities() → a(ssssdt)`.
        public static let availableActivities = MethodDeclaration(
            "AvailableActivities", out: [ActivitySummary].self, outputNames: ["activities"])
        /// `WatchActivities()`: ActivityAppeared/ActivityDisappeared are sent to the caller from now on.
        public static let watchActivities = MethodDeclaration("WatchActivities")
        /// `Continue(s id) → ((ssssdt) summary, s type, s title, ay userInfo)`, with Progress signals: the four
        /// values of the interface as first published. (0.1.0 returned a fifth, the transfer's path, which broke
        /// clients written against the documentation; `ContinueActivity` returns it, in a dictionary that can grow.)
        public static let `continue` = MethodDeclaration(
            "Continue", in: String.self, out: ActivitySummary.self, String.self, String.self, [UInt8].self,
            inputNames: ["id"], outputNames: ["summary", "type", "title", "userInfo"])
        /// `ContinueActivity(s id, a{sv} options) → a{sv}`, with Progress signals: the continue whose result can
        /// gain keys (``HandoffBusAPI/ContinueResult``). No option is defined yet; unknown options are ignored.
        public static let continueActivity = MethodDeclaration(
            "ContinueActivity", in: String.self, [String: Variant].self, out: [String: Variant].self,
            inputNames: ["id", "options"], outputNames: ["activity"])
        /// `Devices() → a(ssbd)`.
        public static let devices = MethodDeclaration("Devices", out: [DeviceInfo].self, outputNames: ["devices"])
        /// `Pair(s deviceName, u timeoutSeconds) → (ssbd)`, with PairingCode signals.
        public static let pair = MethodDeclaration(
            "Pair", in: String.self, UInt32.self, out: DeviceInfo.self, inputNames: ["deviceName", "timeoutSeconds"],
            outputNames: ["device"])
        /// `AcceptPairing(u timeoutSeconds) → (ssbd)`, with PairingCode signals.
        public static let acceptPairing = MethodDeclaration(
            "AcceptPairing", in: UInt32.self, out: DeviceInfo.self, inputNames: ["timeoutSeconds"],
            outputNames: ["device"])
        /// `ConfirmPairing(s code, b accept)`.
        public static let confirmPairing = MethodDeclaration(
            "ConfirmPairing", in: String.self, Bool.self, inputNames: ["code", "accept"])
        /// `Unpair(s device)`.
        public static let unpair = MethodDeclaration("Unpair", in: String.self, inputNames: ["device"])
        /// `DeclareActivityType(s type, a{sv} options)`: the type may be offered and continued from now on, for as
        /// long as the daemon runs; `App` s names the app that handles it (``HandoffBusAPI/TypeKey``).
        public static let declareActivityType = MethodDeclaration(
            "DeclareActivityType", in: String.self, [String: Variant].self, inputNames: ["type", "options"])
        /// `ActivityTypes() → a{sa{sv}}`: every declared type, with what is known of it (``HandoffBusAPI/TypeKey``).
        public static let activityTypes = MethodDeclaration(
            "ActivityTypes", out: [String: [String: Variant]].self, outputNames: ["types"])
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
        /// `CurrentActivityContinued(s id, a{sv} details)`, to the connection that offered the activity `id`, when
        /// a paired device continued it; `details` says what it asked (``HandoffBusAPI/ContinuedKey``).
        public static let currentActivityContinued = SignalDeclaration(
            "CurrentActivityContinued", of: String.self, [String: Variant].self, argumentNames: ["id", "details"])
        /// `PairingCode(s deviceName, s code)`, to the caller of Pair or AcceptPairing.
        public static let pairingCode = SignalDeclaration(
            "PairingCode", of: String.self, String.self, argumentNames: ["deviceName", "code"])
    }
}
