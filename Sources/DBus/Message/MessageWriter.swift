import CDBus

/// Marshals ``Value``s into a message body with libdbus's `DBusMessageIter`, one typed append per value.
///
/// Values are validated before they get here (see `Value.validate(as:)`), so the only failure left is libdbus
/// running out of memory.
enum MessageWriter {
    static func append(_ values: [Value], to message: Message) throws(DBusError) {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message.raw, &iter)
        try withUnsafeMutablePointer(to: &iter) { (pointer) throws(DBusError) in
            for value in values { try append(value, to: pointer) }
        }
    }

    private static func oom() -> DBusError {
        DBusError(.outOfMemory, "libdbus ran out of memory while building a message")
    }

    private static func basic<T: BitwiseCopyable>(
        _ code: Int32, _ value: T, _ iter: UnsafeMutablePointer<DBusMessageIter>
    ) throws(DBusError) {
        var copy = value
        let ok = withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(iter, code, UnsafeRawPointer($0)) }
        guard ok != 0 else { throw oom() }
    }

    private static func text(_ code: Int32, _ string: String, _ iter: UnsafeMutablePointer<DBusMessageIter>)
        throws(DBusError)
    {
        let ok = string.withCString { pointer in
            var cString: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(iter, code, &cString)
        }
        guard ok != 0 else { throw oom() }
    }

    /// Opens a container, fills it with `body`, and closes it (or abandons it when `body` throws).
    private static func container(
        _ code: Int32, _ signature: String?, _ iter: UnsafeMutablePointer<DBusMessageIter>,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        try withUnsafeMutablePointer(to: &sub) { (subPointer) throws(DBusError) in
            let opened = withOptionalCString(signature) { dbus_message_iter_open_container(iter, code, $0, subPointer) }
            guard opened != 0 else { throw oom() }
            do throws(DBusError) {
                try body(subPointer)
            } catch {
                dbus_message_iter_abandon_container(iter, subPointer)
                throw error
            }
            guard dbus_message_iter_close_container(iter, subPointer) != 0 else { throw oom() }
        }
    }

    static func append(_ value: Value, to iter: UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) {
        switch value {
        case .byte(let v): try basic(TypeCode.byte, v, iter)
        case .boolean(let v): try basic(TypeCode.boolean, dbus_bool_t(v ? 1 : 0), iter)
        case .int16(let v): try basic(TypeCode.int16, v, iter)
        case .uint16(let v): try basic(TypeCode.uint16, v, iter)
        case .int32(let v): try basic(TypeCode.int32, v, iter)
        case .uint32(let v): try basic(TypeCode.uint32, v, iter)
        case .int64(let v): try basic(TypeCode.int64, v, iter)
        case .uint64(let v): try basic(TypeCode.uint64, v, iter)
        case .double(let v): try basic(TypeCode.double, v, iter)
        case .string(let v): try text(TypeCode.string, v, iter)
        case .objectPath(let v): try text(TypeCode.objectPath, v.rawValue, iter)
        case .signature(let v): try text(TypeCode.signature, v.rawValue, iter)
        case .unixFD(let v):
            // libdbus duplicates the descriptor; `v` keeps owning (and later closes) the original.
            try withExtendedLifetime(v) { () throws(DBusError) in try basic(TypeCode.unixFD, v.rawValue, iter) }
        case .variant(let inner):
            try container(TypeCode.variant, inner.value.type.description, iter) { (sub) throws(DBusError) in
                try append(inner.value, to: sub)
            }
        case .bytes(let bytes):
            try container(TypeCode.array, "y", iter) { (sub) throws(DBusError) in
                guard !bytes.isEmpty else { return }
                let ok = bytes.withUnsafeBufferPointer { buffer in
                    var base = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(sub, TypeCode.byte, &base, Int32(buffer.count))
                }
                guard ok != 0 else { throw oom() }
            }
        case .array(let element, let items):
            try container(TypeCode.array, element.description, iter) { (sub) throws(DBusError) in
                for item in items { try append(item, to: sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{\(key)\(valueType)}"
            try container(TypeCode.array, entrySignature, iter) { (sub) throws(DBusError) in
                for entry in entries {
                    try container(TypeCode.dictEntry, nil, sub) { (pair) throws(DBusError) in
                        try append(entry.key, to: pair)
                        try append(entry.value, to: pair)
                    }
                }
            }
        case .structure(let fields):
            try container(TypeCode.structure, nil, iter) { (sub) throws(DBusError) in
                for field in fields { try append(field, to: sub) }
            }
        }
    }
}
