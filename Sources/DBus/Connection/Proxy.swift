/// A remote object's interface, seen from this side: calls, properties and signals without repeating the
/// destination, path and interface each time.
///
/// ```swift
/// let adapter = Proxy(connection: bus, destination: "org.bluez", path: "/org/bluez/hci0",
///                     interface: "org.bluez.Adapter1")
/// let powered = try await adapter.property("Powered", as: Bool.self)
/// try await adapter.setProperty("Powered", true)
/// try await adapter.call("StartDiscovery")
/// ```
public struct Proxy: Sendable {
    /// The connection calls go through.
    public let connection: Connection
    /// The bus name of the peer.
    public let destination: BusName
    /// The object path.
    public let path: ObjectPath
    /// The interface.
    public let interface: InterfaceName
    /// The reply timeout for every call; nil uses libdbus's default of 25 seconds.
    public var timeout: Duration?

    /// Creates a proxy. Nothing is sent until the first call.
    public init(
        connection: Connection, destination: BusName, path: ObjectPath, interface: InterfaceName,
        timeout: Duration? = nil
    ) {
        self.connection = connection
        self.destination = destination
        self.path = path
        self.interface = interface
        self.timeout = timeout
    }

    /// Calls `member` and returns the reply's arguments.
    @discardableResult
    public func call(_ member: MemberName, _ arguments: Value...) async throws(DBusError) -> [Value] {
        try await call(member, arguments: arguments)
    }

    /// Calls `member` with an argument array and returns the reply's arguments.
    @discardableResult
    public func call(_ member: MemberName, arguments: [Value]) async throws(DBusError) -> [Value] {
        try await connection.call(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: timeout)
    }

    /// Calls `member` and converts its single result to `R`.
    ///
    /// - Throws: ``DBusError`` `.typeMismatch` when the reply is not exactly one value of type `R`.
    public func call<R: DBusRepresentable>(
        _ member: MemberName, arguments: [Value] = [], returning type: R.Type
    ) async throws(DBusError) -> R {
        let reply = try await call(member, arguments: arguments)
        guard reply.count == 1, let only = reply.first else {
            throw DBusError(
                .typeMismatch, "'\(member)' returned \(reply.count) values where one \(R.dbusType) was expected")
        }
        return try R(dbusValue: only)
    }

    private func propertiesCall(_ member: MemberName, _ arguments: [Value]) async throws(DBusError) -> [Value] {
        try await connection.call(
            destination: destination, path: path, interface: StandardInterfaces.properties, member: member,
            arguments: arguments, timeout: timeout)
    }

    /// Reads one property (`Properties.Get`) as an untyped value.
    public func property(_ name: MemberName) async throws(DBusError) -> Value {
        let reply = try await propertiesCall("Get", [.string(interface.rawValue), .string(name.rawValue)])
        guard reply.count == 1, case .variant(let variant) = reply[0] else {
            throw DBusError(.typeMismatch, "Properties.Get returned \(reply) instead of one variant")
        }
        return variant.value
    }

    /// Reads one property and converts it to `T`.
    public func property<T: DBusRepresentable>(_ name: MemberName, as type: T.Type) async throws(DBusError) -> T {
        try T(dbusValue: await property(name))
    }

    /// Reads every property of the interface (`Properties.GetAll`).
    public func allProperties() async throws(DBusError) -> [String: Variant] {
        let reply = try await propertiesCall("GetAll", [.string(interface.rawValue)])
        guard reply.count == 1 else { throw DBusError(.typeMismatch, "Properties.GetAll returned \(reply)") }
        return try [String: Variant](dbusValue: reply[0])
    }

    /// Writes one property (`Properties.Set`).
    public func setProperty(_ name: MemberName, _ value: Value) async throws(DBusError) {
        _ = try await propertiesCall(
            "Set", [.string(interface.rawValue), .string(name.rawValue), .variant(Variant(value))])
    }

    /// Writes one property from a typed Swift value.
    public func setProperty<T: DBusRepresentable>(_ name: MemberName, _ value: T) async throws(DBusError) {
        try await setProperty(name, value.dbusValue)
    }

    /// Subscribes to this object's signals of the interface (one member, or all when `member` is nil) from
    /// `destination`. The match rule is in place when this returns.
    public func signals(_ member: MemberName? = nil) async throws(DBusError) -> AsyncStream<Message> {
        try await connection.signals(
            matching: .signal(sender: destination, interface: interface, member: member, path: path))
    }

    /// Subscribes to `PropertiesChanged` of this object's interface (from `destination`); the match rule is in
    /// place when this returns, so read the current values after subscribing to miss nothing.
    public func propertyChanges() async throws(DBusError) -> AsyncStream<PropertiesChange> {
        let rule = MatchRule.signal(
            sender: destination, interface: StandardInterfaces.properties, member: "PropertiesChanged", path: path
        ).argument(0, interface.rawValue)
        let messages = try await connection.signals(matching: rule)
        return AsyncStream { continuation in
            let task = Task {
                for await message in messages {
                    if let change = PropertiesChange(message) { continuation.yield(change) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
