import DBus
import HandoffClient

extension HandoffBusAPI {
    /// One entry of `Status`'s `a{sv}`: its key and the Swift type of its value, said once for the daemon that
    /// writes it and the client that reads it, so the two cannot disagree on a name or a type.
    public struct StatusKey<Value: DBusRepresentable>: Sendable {
        /// The key on the bus.
        public let name: String

        init(_ name: String) {
            self.name = name
        }
    }

    /// `Status`'s entries (Docs/dbus-api.md).
    public enum Status {
        /// The daemon's version.
        public static let version = StatusKey<String>("Version")
        /// This device's name in the trust group.
        public static let deviceName = StatusKey<String>("DeviceName")
        /// The adapter the daemon uses now; "" when none.
        public static let adapter = StatusKey<String>("Adapter")
        /// That adapter's address; "" when none (or unknown).
        public static let adapterAddress = StatusKey<String>("AdapterAddress")
        /// How the daemon chose it, or what it waits for, in words (`BlueZ's default`, `waiting for an adapter`);
        /// absent when the daemon does not say.
        public static let adapterChoice = StatusKey<String>("AdapterChoice")
        /// Whether the adapter is powered.
        public static let powered = StatusKey<Bool>("Powered")
        /// Whether the caller owns the trust group.
        public static let owner = StatusKey<Bool>("Owner")
        /// How the radio scans (`advertisement monitor (…)` or `discovery (fallback: …)`); absent before the first
        /// scan.
        public static let scanning = StatusKey<String>("Scanning")
        /// Paired devices (for the owner and root only).
        public static let pairedDevices = StatusKey<UInt32>("PairedDevices")
        /// Activities available from paired devices (likewise).
        public static let availableActivities = StatusKey<UInt32>("AvailableActivities")
        /// The caller's current activity, if it has one.
        public static let currentActivity = StatusKey<ActivitySummary>("CurrentActivity")
        /// The app that offered the caller's current activity: the name declared for its type
        /// (`DeclareActivityType`'s `App`), else the name of the process that called SetCurrentActivity.
        public static let currentActivityApp = StatusKey<String>("CurrentActivityApp")
    }

    /// `ContinueActivity`'s entries (Docs/dbus-api.md). Later versions may add keys; a client ignores those it
    /// does not know.
    public enum ContinueResult {
        /// The activity's summary, with its real title and size.
        public static let summary = StatusKey<ActivitySummary>("Summary")
        /// Its type.
        public static let type = StatusKey<String>("Type")
        /// Its title.
        public static let title = StatusKey<String>("Title")
        /// Its userInfo, a binary property list.
        public static let userInfo = StatusKey<[UInt8]>("UserInfo")
        /// The same userInfo as D-Bus values, each with its type (``BusCoding/values(_:)`` says how each property-list
        /// type maps); absent when it nests deeper than ``BusCoding/maximumValueDepth``.
        public static let userInfoValues = StatusKey<[String: Variant]>("UserInfoValues")
        /// The link that carried it: `l2cap` or `gatt`.
        public static let transport = StatusKey<String>("Transport")
        /// Why GATT stood in for L2CAP, when it did.
        public static let fallback = StatusKey<String>("Fallback")
        /// The app this device declared for the type, when one declared it.
        public static let app = StatusKey<String>("App")
    }

    /// `ContinueActivity`'s options. A daemon ignores options it does not know.
    public enum ContinueOption {
        /// Ask the source to pause what it plays (`handoff continue --pause-source`): carried to the source in the
        /// transfer's DONE, and signalled there to the app that offered the activity.
        public static let pauseSource = StatusKey<Bool>("PauseSource")
    }

    /// `CurrentActivityContinued`'s details.
    public enum ContinuedKey {
        /// The device that continued it asked the source to pause what it plays.
        public static let pauseSource = StatusKey<Bool>("PauseSource")
    }

    /// The entries of a declared type, in `DeclareActivityType`'s options and `ActivityTypes`' answer.
    public enum TypeKey {
        /// The app that handles the type, as people know it (`mpv`, `Firefox`).
        public static let app = StatusKey<String>("App")
        /// Whether the daemon declares it itself (`ActivityTypes` only).
        public static let builtIn = StatusKey<Bool>("BuiltIn")
    }
}

extension [String: Variant] {
    /// The entry under `key`, typed; nil when it is absent or of another type. Setting nil removes it.
    public subscript<Entry>(key: HandoffBusAPI.StatusKey<Entry>) -> Entry? {
        get { try? self[key.name]?.get(Entry.self) }
        set { self[key.name] = newValue.map { Variant($0) } }
    }
}
