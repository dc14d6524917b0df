import CDBus

extension Message {
    /// A method call message.
    ///
    /// - Throws: ``DBusError`` `.invalidValue` when an argument cannot be sent, `.outOfMemory` when libdbus fails.
    public static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        arguments: [Value] = []
    ) throws(DBusError) -> Message {
        let raw = withOptionalCString(destination?.rawValue) { destination in
            withOptionalCString(interface?.rawValue) { interface in
                dbus_message_new_method_call(destination, path.rawValue, interface, member.rawValue)
            }
        }
        guard let raw else { throw DBusError(.outOfMemory, "cannot allocate a method call") }
        let message = Message(adopting: raw)
        try message.append(arguments)
        return message
    }

    /// A signal message.
    public static func signal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, arguments: [Value] = []
    ) throws(DBusError) -> Message {
        guard let raw = dbus_message_new_signal(path.rawValue, interface.rawValue, member.rawValue) else {
            throw DBusError(.outOfMemory, "cannot allocate a signal")
        }
        let message = Message(adopting: raw)
        try message.append(arguments)
        return message
    }

    /// A successful reply to this method call.
    func makeReturn(_ arguments: [Value]) throws(DBusError) -> Message {
        guard let raw = dbus_message_new_method_return(self.raw) else {
            throw DBusError(.outOfMemory, "cannot allocate a method return")
        }
        let message = Message(adopting: raw)
        try message.append(arguments)
        return message
    }

    /// An error reply to this method call. Returns nil only when libdbus is out of memory.
    func makeError(_ name: ErrorName, _ text: String) -> Message? {
        let clean = text.utf8.contains(0) ? String(text.map { $0 == "\0" ? "?" : $0 }) : text
        return dbus_message_new_error(self.raw, name.rawValue, clean).map { Message(adopting: $0) }
    }

    /// Addresses the message to one connection (a unicast signal is delivered only there).
    func setDestination(_ destination: BusName) throws(DBusError) {
        guard dbus_message_set_destination(raw, destination.rawValue) != 0 else {
            throw DBusError(.outOfMemory, "cannot set the destination of a message")
        }
    }

    /// Asks the receiver not to reply (for calls whose answer is not awaited).
    func setNoReply(_ noReply: Bool) {
        dbus_message_set_no_reply(raw, noReply ? 1 : 0)
    }

    /// Appends `values` to the body after checking every one of them.
    func append(_ values: [Value]) throws(DBusError) {
        guard !values.isEmpty else { return }
        for value in values { try value.validate(as: value.type) }
        try MessageWriter.append(values, to: self)
    }
}

/// Calls `body` with a C string for `string`, or with nil.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
