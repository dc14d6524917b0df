import CDBus

/// A connection to a D-Bus message bus.
///
/// ```swift
/// let bus = try Connection(.system)
/// let reply = try await bus.call(
///     destination: "org.bluez", path: "/", interface: "org.freedesktop.DBus.ObjectManager",
///     member: "GetManagedObjects")
/// ```
///
/// Incoming traffic is dispatched on one thread per connection, blocked in `poll(2)` on the socket (libdbus's
/// watches) and the nearest deadline (libdbus's timeouts, reply deadlines): an idle connection sleeps and costs
/// no CPU. The connection closes when ``close()`` is called or when the
/// last reference to it goes away. All methods may be called from any task or thread.
public final class Connection: Sendable {
    /// Which bus to connect to.
    public enum Bus: Sendable, Equatable {
        /// The system bus (BlueZ lives here).
        case system
        /// The login session's bus (`DBUS_SESSION_BUS_ADDRESS`).
        case session
        /// A bus at an explicit address such as `unix:path=/tmp/bus`.
        case address(String)
    }

    let core: ConnectionCore

    /// Connects and registers with the bus (the `Hello` call). This blocks the calling thread for the
    /// handshake, typically well under a millisecond on a local bus.
    ///
    /// - Throws: ``DBusError`` `.connectionFailed` with libdbus's reason when the bus cannot be reached or the
    ///   authentication fails.
    public init(_ bus: Bus) throws(DBusError) {
        dbus_threads_init_default()
        var cError = CDBus.DBusError()
        dbus_error_init(&cError)
        defer { dbus_error_free(&cError) }
        let raw: OpaquePointer?
        switch bus {
        case .system: raw = dbus_bus_get_private(DBUS_BUS_SYSTEM, &cError)
        case .session: raw = dbus_bus_get_private(DBUS_BUS_SESSION, &cError)
        case .address(let address):
            let opened = dbus_connection_open_private(address, &cError)
            if let opened, dbus_bus_register(opened, &cError) == 0 {
                dbus_connection_close(opened)
                dbus_connection_unref(opened)
                raw = nil
            } else {
                raw = opened
            }
        }
        guard let raw else {
            let name = cError.name.map { String(cString: $0) } ?? "unknown"
            let text = cError.message.map { String(cString: $0) } ?? "no reason given"
            throw DBusError(.connectionFailed, "cannot connect to the \(bus) bus: \(text)",
                name: ErrorName(rawValue: name))
        }
        core = ConnectionCore(raw: raw)
    }

    deinit {
        core.close()
    }

    /// The unique name the bus assigned, e.g. `:1.42`.
    public var uniqueName: BusName { core.uniqueName }

    /// The connection's own thread, as a task executor. A task that makes many calls in a row can run there:
    ///
    /// ```swift
    /// try await withTaskExecutorPreference(bus.executor) {
    ///     for _ in 0..<1000 { _ = try await proxy.call("Ping") }
    /// }
    /// ```
    ///
    /// Each reply then resumes the task on the thread that read it, instead of waking another thread for it
    /// (about 2x cheaper for a small call). Keep such a task short of heavy work: while it runs, the connection
    /// reads and dispatches nothing.
    public var executor: any TaskExecutor { core.loop }

    /// How many messages the bus has delivered to this connection so far, by kind.
    public var statistics: ConnectionStatistics { core.counters.snapshot }

    /// True once the connection is closed (by ``close()`` or because the bus went away).
    public var isClosed: Bool { core.isClosed }

    /// Closes the connection. Pending calls fail with `.disconnected`, signal streams finish, exported objects
    /// disappear from the bus. Calling it again does nothing.
    public func close() {
        core.close()
    }

    /// Calls a method and returns the reply's arguments.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the reply; nil uses libdbus's default of 25 seconds.
    /// - Throws: ``DBusError``: `.remote` (or a more specific code) with the error name and message of an
    ///   error reply; `.noReply` on timeout or when the peer leaves the bus mid-call; `.disconnected`;
    ///   `.cancelled` when the task is cancelled; `.invalidValue` when an argument cannot be sent.
    public func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        arguments: [Value] = [], timeout: Duration? = nil
    ) async throws(DBusError) -> [Value] {
        let message = try Message.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        return try await core.call(message, timeout: timeout).arguments()
    }

    /// Sends a prepared method call and returns the whole reply message (for headers or fds).
    public func send(_ message: Message, timeout: Duration? = nil) async throws(DBusError) -> Message {
        try await core.call(message, timeout: timeout)
    }

    /// Queues a message without waiting for a reply: a signal, or a method call marked no-reply.
    public func sendWithoutReply(_ message: Message) throws(DBusError) {
        try core.send(message)
    }

    /// Emits a signal from an object path.
    public func emitSignal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = []
    ) throws(DBusError) {
        try core.send(Message.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    /// Emits a signal addressed to one connection only (a unicast signal): the bus delivers it to `destination`
    /// and to nobody else, whatever match rules others have. Use it for events only one caller may see.
    public func emitSignal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = [],
        destination: BusName
    ) throws(DBusError) {
        let message = try Message.signal(path: path, interface: interface, member: member, arguments: arguments)
        try message.setDestination(destination)
        try core.send(message)
    }
}
