/// Names of the interfaces the object server implements itself.
enum StandardInterfaces {
    static let properties = InterfaceName(trusted: "org.freedesktop.DBus.Properties")
    static let introspectable = InterfaceName(trusted: "org.freedesktop.DBus.Introspectable")
    static let objectManager = InterfaceName(trusted: "org.freedesktop.DBus.ObjectManager")
    static let peer = InterfaceName(trusted: "org.freedesktop.DBus.Peer")
}
