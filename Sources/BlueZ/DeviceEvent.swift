/// What happened to a remote device during discovery, as delivered by ``BlueZ/scan(on:filter:)``.
public enum DeviceEvent: Sendable, Equatable {
    /// A device matching the filter was seen for the first time (or again after it was gone).
    case appeared(Device1.Properties)
    /// Properties changed (RSSI, ManufacturerData, ServiceData…); `changed` names the properties.
    case updated(Device1.Properties, changed: Set<String>)
    /// BlueZ removed the device object (it went out of range, or was removed).
    case gone(Device1.Properties)
    /// An advertisement of a device already reported, with nothing in it changed. Only an advertisement monitor
    /// with open RSSI thresholds is told of each one (its `DeviceFound`, doc/org.bluez.AdvertisementMonitor.rst);
    /// a discovery says nothing of such an advertisement beyond an RSSI change (`.updated`).
    case heardAgain(Device1.Properties)

    /// The device's properties at the time of the event.
    public var device: Device1.Properties {
        switch self {
        case .appeared(let device), .updated(let device, _), .gone(let device), .heardAgain(let device): device
        }
    }
}
