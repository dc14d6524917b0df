import CDBus

/// One D-Bus message: a method call, a method return, an error reply or a signal.
///
/// A `Message` wraps libdbus's reference-counted `DBusMessage`. Messages handed out by the layer are complete:
/// they are only read from, never changed, which is why sharing one between tasks is safe.
public final class Message: @unchecked Sendable {
    /// The kind of message.
    public enum Kind: Sendable, Equatable {
        /// A method call.
        case methodCall
        /// A successful reply.
        case methodReturn
        /// An error reply.
        case error
        /// A signal.
        case signal
        /// A type libdbus does not know (a newer protocol).
        case unknown
    }

    /// The libdbus message; this object holds one reference.
    let raw: OpaquePointer

    /// Takes over one reference to `raw`.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference to `raw`, which stays owned by the caller too.
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// The kind of message.
    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case 1: return .methodCall
        case 2: return .methodReturn
        case 3: return .error
        case 4: return .signal
        default: return .unknown
        }
    }

    /// The sender's unique name (set by the bus), if any.
    public var sender: BusName? { dbus_message_get_sender(raw).map { BusName(trusted: String(cString: $0)) } }
    /// The destination bus name, if any.
    public var destination: BusName? {
        dbus_message_get_destination(raw).map { BusName(trusted: String(cString: $0)) }
    }
    /// The object path of a method call or signal.
    public var path: ObjectPath? { dbus_message_get_path(raw).map { ObjectPath(trusted: String(cString: $0)) } }
    /// The interface of a method call (optional there) or signal.
    public var interface: InterfaceName? {
        dbus_message_get_interface(raw).map { InterfaceName(trusted: String(cString: $0)) }
    }
    /// The method or signal name.
    public var member: MemberName? { dbus_message_get_member(raw).map { MemberName(trusted: String(cString: $0)) } }
    /// The error name of an error reply.
    public var errorName: ErrorName? {
        dbus_message_get_error_name(raw).map { ErrorName(trusted: String(cString: $0)) }
    }
    /// The serial number the sender gave this message.
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    /// For replies, the serial of the call being answered.
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    /// True when the caller asked for no reply (`NO_REPLY_EXPECTED`).
    public var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// The signature of the body, as text (e.g. `sa{sv}`).
    public var signatureText: String {
        dbus_message_get_signature(raw).map { String(cString: $0) } ?? ""
    }

    /// The parsed signature of the body.
    public var signature: Signature {
        get throws(DBusError) {
            var parser = SignatureParser(Array(signatureText.utf8))
            return Signature(types: try parser.parseAll())
        }
    }

    /// Decodes the body.
    ///
    /// - Throws: ``DBusError`` when the body cannot be read (a malformed message that libdbus let through).
    public func arguments() throws(DBusError) -> [Value] {
        try MessageReader.read(self)
    }

    /// The first string argument of an error reply, which by convention is its message.
    var errorText: String {
        if let first = try? arguments().first, case .string(let text) = first { return text }
        return ""
    }

    /// The error this message carries if it is an error reply, else nil.
    var error: DBusError? {
        guard kind == .error, let name = errorName else { return nil }
        return DBusError(name: name, message: errorText)
    }
}
