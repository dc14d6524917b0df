import DBus
import FoundationEssentials
import HandoffShared

/// Something we registered with bluetoothd, remembered so it can be registered again when bluetoothd returns.
struct Registration: Sendable {
    enum Kind: Sendable {
        case advertisement
        case application
        case agent(capability: String)
    }

    var kind: Kind
    /// Our exported object (advertisement, application root or agent).
    var path: ObjectPath
    /// The adapter it is registered on (`hci0`); empty for agents.
    var adapterName: String
    /// Registered with the current bluetoothd.
    var active: Bool
    /// bluetoothd released it (advertisement timeout); it is not restored.
    var released = false
    /// When it was last (re)registered.
    var registeredAt: HandoffInstant?
    /// How many times it was restored after bluetoothd came back.
    var restoreCount = 0
    /// An advertisement's data, as ``AdvertisementRegistration/update(_:method:)`` last set it.
    var advertisement: Locked<LEAdvertisement>?
}
