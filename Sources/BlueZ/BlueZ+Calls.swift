import DBus

/// Calling bluetoothd, with its errors translated at the boundary.
extension BlueZ {
    /// Calls `member` of `interface` on a bluetoothd object.
    ///
    /// - Throws: ``BlueZError``: the BlueZ error code of an error reply (ATT errors as `.att`),
    ///   `.unavailable(.noBlueZ)` when bluetoothd is not on the bus, `.bus` for D-Bus failures.
    nonisolated func call(
        _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ arguments: [Value] = [],
        timeout: Duration? = nil
    ) async throws(BlueZError) -> [Value] {
        do {
            return try await connection.call(
                destination: BlueZNames.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout)
        } catch {
            throw BlueZError(calling: "\(interface).\(member) on \(path)", error)
        }
    }

    /// Sets a property of a bluetoothd object.
    nonisolated func setProperty(_ path: ObjectPath, _ interface: InterfaceName, _ name: String, _ value: Value)
        async throws(BlueZError)
    {
        _ = try await call(
            path, BlueZNames.properties, "Set", [.string(interface.rawValue), .string(name), .variant(Variant(value))])
    }

    /// Reads a property of a bluetoothd object fresh from the bus.
    nonisolated func getProperty(_ path: ObjectPath, _ interface: InterfaceName, _ name: String,
                                 timeout: Duration? = nil)
        async throws(BlueZError) -> Variant
    {
        let reply = try await call(path, BlueZNames.properties, "Get", [.string(interface.rawValue), .string(name)],
                                   timeout: timeout)
        guard let first = reply.first, case .variant(let variant) = first else {
            throw BlueZError(.malformedReply, "Properties.Get(\(name)) on \(path) did not return a variant")
        }
        return variant
    }
}

extension BlueZError {
    /// Translates a D-Bus layer error met while doing `what`.
    init(calling what: String, _ error: DBusError) {
        if let name = error.name, error.code == .remote || name.rawValue.hasPrefix(BlueZNames.errorPrefix) {
            if name.rawValue == "org.freedesktop.DBus.Error.ServiceUnknown"
                || name.rawValue == "org.freedesktop.DBus.Error.NameHasNoOwner"
            {
                self.init(.unavailable(.noBlueZ), "bluetoothd is not on the bus (\(what))", name: name.rawValue,
                          cause: error)
                return
            }
            self.init(remoteName: name.rawValue, message: error.message, cause: error)
            return
        }
        self.init(.bus, "\(what) failed: \(error.message)", name: error.name?.rawValue, cause: error)
    }

    /// The D-Bus error our exported objects reply with for this error.
    var dbusReply: DBusError {
        let name = code.errorName.flatMap(ErrorName.init(rawValue:)) ?? BlueZNames.failed
        return DBusError(name: name, message: message)
    }
}
