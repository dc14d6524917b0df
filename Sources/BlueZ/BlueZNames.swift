import DBus

/// The names BlueZ publishes on D-Bus, in one place (the role bleak's `defs.py` plays).
///
/// Interfaces keep their version suffix, as in BlueZ's `doc/org.bluez.*.rst`. Properties that appeared in a
/// later BlueZ release say so next to the type that reads them.
public enum BlueZNames {
    /// The well-known bus name bluetoothd owns.
    public static let service: BusName = "org.bluez"
    /// The object that carries AgentManager1 (and ProfileManager1).
    public static let rootPath: ObjectPath = "/org/bluez"

    /// `org.bluez.Adapter1` (doc/org.bluez.Adapter.rst).
    public static let adapter1: InterfaceName = "org.bluez.Adapter1"
    /// `org.bluez.Device1` (doc/org.bluez.Device.rst).
    public static let device1: InterfaceName = "org.bluez.Device1"
    /// `org.bluez.LEAdvertisingManager1` (doc/org.bluez.LEAdvertisingManager.rst).
    public static let leAdvertisingManager1: InterfaceName = "org.bluez.LEAdvertisingManager1"
    /// `org.bluez.LEAdvertisement1` (doc/org.bluez.LEAdvertisement.rst), implemented by us.
    public static let leAdvertisement1: InterfaceName = "org.bluez.LEAdvertisement1"
    /// `org.bluez.GattManager1` (doc/org.bluez.GattManager.rst).
    public static let gattManager1: InterfaceName = "org.bluez.GattManager1"
    /// `org.bluez.GattService1` (doc/org.bluez.GattService.rst).
    public static let gattService1: InterfaceName = "org.bluez.GattService1"
    /// `org.bluez.GattCharacteristic1` (doc/org.bluez.GattCharacteristic.rst).
    public static let gattCharacteristic1: InterfaceName = "org.bluez.GattCharacteristic1"
    /// `org.bluez.GattDescriptor1` (doc/org.bluez.GattDescriptor.rst).
    public static let gattDescriptor1: InterfaceName = "org.bluez.GattDescriptor1"
    /// `org.bluez.AgentManager1` (doc/org.bluez.AgentManager.rst), on ``rootPath``.
    public static let agentManager1: InterfaceName = "org.bluez.AgentManager1"
    /// `org.bluez.Agent1` (doc/org.bluez.Agent.rst), implemented by us.
    public static let agent1: InterfaceName = "org.bluez.Agent1"

    /// `org.bluez.AdvertisementMonitorManager1` (doc/org.bluez.AdvertisementMonitorManager.rst); in 5.66 only
    /// when bluetoothd runs with `-E`.
    public static let advertisementMonitorManager1: InterfaceName = "org.bluez.AdvertisementMonitorManager1"
    /// `org.bluez.AdvertisementMonitor1` (doc/org.bluez.AdvertisementMonitor.rst), implemented by us.
    public static let advertisementMonitor1: InterfaceName = "org.bluez.AdvertisementMonitor1"

    /// `org.freedesktop.DBus.ObjectManager`.
    public static let objectManager: InterfaceName = "org.freedesktop.DBus.ObjectManager"
    /// `org.freedesktop.DBus.Properties`.
    public static let properties: InterfaceName = "org.freedesktop.DBus.Properties"

    /// The prefix of every error name BlueZ sends (`org.bluez.Error.NotPermitted`, …).
    public static let errorPrefix = "org.bluez.Error."
    /// `org.bluez.Error.Failed`, the reply for a failure with no name of its own.
    public static let failed: ErrorName = "org.bluez.Error.Failed"

    /// `org.bluez.Error.<short>` (`NotSupported`, `Rejected`, …); ``failed`` when `short` makes no valid name.
    public static func error(_ short: String) -> ErrorName {
        ErrorName(rawValue: errorPrefix + short) ?? failed
    }

    /// The message bluetoothd attaches to `org.bluez.Error.Failed` when the kernel aborted an LE connection
    /// attempt on our side; it is transient and worth a retry (bleak retries it too).
    public static let leConnectionAbortByLocal = "le-connection-abort-by-local"

    /// Where handoff exports its own objects; never `/` and never under `/org/bluez`.
    public static let exportRoot: ObjectPath = "/org/handoff"
}
