/// One `org.freedesktop.DBus.Properties.PropertiesChanged` signal, decoded.
public struct PropertiesChange: Sendable, Equatable {
    /// The object that changed.
    public var path: ObjectPath
    /// The interface whose properties changed.
    public var interface: InterfaceName
    /// New values.
    public var changed: [String: Variant]
    /// Properties that changed but whose values were not sent; read them again if needed.
    public var invalidated: [String]

    /// Decodes a PropertiesChanged signal; nil for any other message or a malformed one.
    public init?(_ message: Message) {
        guard message.kind == .signal, message.member == "PropertiesChanged", let path = message.path,
            let values = try? message.arguments(), values.count == 3,
            case .string(let interfaceText) = values[0], let interface = InterfaceName(rawValue: interfaceText),
            let changed = try? [String: Variant](dbusValue: values[1]),
            let invalidated = try? [String](dbusValue: values[2])
        else { return nil }
        self.path = path
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }
}
