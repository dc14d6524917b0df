import DBus

/// Calling bluetoothd, with its errors translated at the boundary.
extension BlueZ {
    /// A proxy on one interface of a bluetoothd object: every call, property read and write to bluetoothd goes
    /// through one.
    nonisolated func proxy(_ path: ObjectPath, _ interface: InterfaceName, timeout: Duration? = nil) -> Proxy {
        Proxy(connection: connection, destination: BlueZNames.service, path: path, interface: interface,
              timeout: timeout)
    }

    /// Calls `member` of `interface` on a bluetoothd object.
    ///
    /// - Throws: ``BlueZError``: the BlueZ error code of an error reply (ATT errors as `.att`),
    ///   `.unavailable(.noBlueZ)` when bluetoothd is not on the bus, `.bus` for D-Bus failures.
    nonisolated func call(
        _ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName, _ arguments: [Value] = [],
        timeout: Duration? = nil
    ) async throws(BlueZError) -> [Value] {
        do {
            return try await proxy(path, interface, timeout: timeout).call(member, arguments: arguments)
        } catch {
            throw BlueZError(calling: "\(interface).\(member) on \(path)", error)
        }
    }

    /// Sets a property of a bluetoothd object.
    nonisolated func setProperty(_ path: ObjectPath, _ interface: InterfaceName, _ name: MemberName, _ value: Value)
        async throws(BlueZError)
    {
        do {
            try await proxy(path, interface).setProperty(name, value)
        } catch {
            throw BlueZError(calling: "setting \(interface).\(name) on \(path)", error)
        }
    }

    /// Reads a property of a bluetoothd object fresh from the bus, as `T`.
    /// - Throws: ``BlueZError`` as ``call(_:_:_:_:timeout:)`` does; `.malformedReply` when the value is not a `T`.
    nonisolated func property<T: DBusRepresentable>(
        _ path: ObjectPath, _ interface: InterfaceName, _ name: MemberName, as type: T.Type,
        timeout: Duration? = nil
    ) async throws(BlueZError) -> T {
        let value: Value
        do {
            value = try await proxy(path, interface, timeout: timeout).property(name)
        } catch {
            throw BlueZError(calling: "reading \(interface).\(name) on \(path)", error)
        }
        do {
            return try T(dbusValue: value)
        } catch {
            throw BlueZError(.malformedReply, "\(interface).\(name) of \(path) is not a \(T.dbusType): \(error.message)")
        }
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
