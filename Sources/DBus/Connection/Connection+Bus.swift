/// Calls on the message bus itself (`org.freedesktop.DBus`).
extension Connection {
    /// What `RequestName` achieved.
    public enum NameRequestResult: UInt32, Sendable {
        /// This connection now owns the name.
        case primaryOwner = 1
        /// Another connection owns it; this one waits in the queue.
        case inQueue = 2
        /// Another connection owns it and queueing was refused (only reported as an error, see below).
        case exists = 3
        /// This connection already owned it.
        case alreadyOwner = 4
    }

    /// Options of `RequestName`.
    public struct NameRequestFlags: OptionSet, Sendable {
        /// The `DBUS_NAME_FLAG_*` bits.
        public let rawValue: UInt32
        /// Creates flags from their bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Let another connection take the name over with `.replaceExisting`.
        public static let allowReplacement = NameRequestFlags(rawValue: 0x1)
        /// Take the name from its owner if it allowed replacement.
        public static let replaceExisting = NameRequestFlags(rawValue: 0x2)
        /// Fail instead of queueing behind the current owner.
        public static let doNotQueue = NameRequestFlags(rawValue: 0x4)
    }

    func busCall(_ member: MemberName, _ arguments: [Value]) async throws(DBusError) -> [Value] {
        try await call(
            destination: ConnectionCore.busName, path: ConnectionCore.busPath, interface: ConnectionCore.busInterface,
            member: member, arguments: arguments)
    }

    /// Asks the bus for a well-known name.
    ///
    /// - Returns: `.primaryOwner`, `.alreadyOwner`, or `.inQueue` (only without `.doNotQueue`).
    /// - Throws: ``DBusError`` `.accessDenied` (name `org.freedesktop.DBus.Error.AccessDenied`) when the bus
    ///   policy forbids owning the name; `.nameTaken` when another connection owns it and `.doNotQueue` is set.
    @discardableResult
    public func requestName(_ name: BusName, flags: NameRequestFlags = [.doNotQueue]) async throws(DBusError)
        -> NameRequestResult
    {
        let reply = try await busCall("RequestName", [.string(name.rawValue), .uint32(flags.rawValue)])
        guard let first = reply.first, case .uint32(let code) = first, let result = NameRequestResult(rawValue: code)
        else { throw DBusError(.typeMismatch, "unexpected RequestName reply \(reply)") }
        if result == .exists {
            throw DBusError(.nameTaken, "the name '\(name)' is owned by another connection")
        }
        return result
    }

    /// Gives a well-known name back. Returns false when this connection did not own (or wait for) it.
    @discardableResult
    public func releaseName(_ name: BusName) async throws(DBusError) -> Bool {
        let reply = try await busCall("ReleaseName", [.string(name.rawValue)])
        return reply.first == .uint32(1)
    }

    /// The unique name owning `name`, or nil when nobody owns it.
    public func owner(of name: BusName) async throws(DBusError) -> BusName? {
        do {
            let reply = try await busCall("GetNameOwner", [.string(name.rawValue)])
            guard let first = reply.first, case .string(let owner) = first else { return nil }
            return BusName(rawValue: owner)
        } catch where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// The Unix user id of the process behind a connection (`GetConnectionUnixUser`); the daemon uses it to
    /// keep users apart.
    ///
    /// - Throws: ``DBusError`` with name `NameHasNoOwner` when `sender` is not on the bus.
    public func unixUser(ofSender sender: BusName) async throws(DBusError) -> UInt32 {
        let reply = try await busCall("GetConnectionUnixUser", [.string(sender.rawValue)])
        guard let first = reply.first, case .uint32(let uid) = first else {
            throw DBusError(.typeMismatch, "unexpected GetConnectionUnixUser reply \(reply)")
        }
        return uid
    }

    /// The Unix process id behind a connection (`GetConnectionUnixProcessID`).
    public func unixProcessID(ofSender sender: BusName) async throws(DBusError) -> UInt32 {
        let reply = try await busCall("GetConnectionUnixProcessID", [.string(sender.rawValue)])
        guard let first = reply.first, case .uint32(let pid) = first else {
            throw DBusError(.typeMismatch, "unexpected GetConnectionUnixProcessID reply \(reply)")
        }
        return pid
    }
}
