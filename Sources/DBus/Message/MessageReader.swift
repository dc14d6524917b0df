import CDBus

/// Unmarshals a message body into ``Value``s, guided by the body's parsed signature so that container element
/// types are known without asking libdbus for signature strings (variants excepted: they carry their own).
enum MessageReader {
    static func read(_ message: Message) throws(DBusError) -> [Value] {
        let types = try message.signature.types
        guard !types.isEmpty else { return [] }
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message.raw, &iter) != 0 else { return [] }
        return try withUnsafeMutablePointer(to: &iter) { (pointer) throws(DBusError) in
            var values: [Value] = []
            values.reserveCapacity(types.count)
            for (index, type) in types.enumerated() {
                if index > 0 { dbus_message_iter_next(pointer) }
                values.append(try read(type, from: pointer, depth: 0))
            }
            return values
        }
    }

    private static func malformed(_ what: String) -> DBusError {
        DBusError(.invalidValue, "malformed message body: \(what)")
    }

    private static func basic(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusBasicValue {
        var value = DBusBasicValue()
        dbus_message_iter_get_basic(iter, &value)
        return value
    }

    private static func string(_ iter: UnsafeMutablePointer<DBusMessageIter>) -> String {
        basic(iter).str.map { String(cString: $0) } ?? ""
    }

    /// Recurses into the container at `iter` and calls `body` with the sub-iterator.
    private static func recurse<R>(
        _ iter: UnsafeMutablePointer<DBusMessageIter>,
        _ body: (UnsafeMutablePointer<DBusMessageIter>) throws(DBusError) -> R
    ) throws(DBusError) -> R {
        var sub = DBusMessageIter()
        return try withUnsafeMutablePointer(to: &sub) { (subPointer) throws(DBusError) -> R in
            dbus_message_iter_recurse(iter, subPointer)
            return try body(subPointer)
        }
    }

    static func read(_ type: DBusType, from iter: UnsafeMutablePointer<DBusMessageIter>, depth: Int)
        throws(DBusError) -> Value
    {
        let actual = dbus_message_iter_get_arg_type(iter)
        guard actual == type.typeCode else {
            throw malformed("expected type '\(type)', found code \(actual)")
        }
        guard depth < 64 else { throw malformed("nested deeper than 64 containers") }
        switch type {
        case .byte: return .byte(basic(iter).byt)
        case .boolean: return .boolean(basic(iter).bool_val != 0)
        case .int16: return .int16(basic(iter).i16)
        case .uint16: return .uint16(basic(iter).u16)
        case .int32: return .int32(basic(iter).i32)
        case .uint32: return .uint32(basic(iter).u32)
        case .int64: return .int64(Int64(basic(iter).i64))
        case .uint64: return .uint64(UInt64(basic(iter).u64))
        case .double: return .double(basic(iter).dbl)
        case .string: return .string(string(iter))
        case .objectPath: return .objectPath(ObjectPath(trusted: string(iter)))
        case .signature:
            return .signature(try Signature(string(iter)))
        case .unixFD:
            // libdbus hands out a duplicate that the reader owns.
            let descriptor = basic(iter).fd
            guard descriptor >= 0 else { throw malformed("file descriptor is missing") }
            return .unixFD(UnixFileDescriptor(takingOwnershipOf: descriptor))
        case .variant:
            return try recurse(iter) { (sub) throws(DBusError) in
                guard let cSignature = dbus_message_iter_get_signature(sub) else {
                    throw DBusError(.outOfMemory, "cannot read a variant's signature")
                }
                let text = String(cString: cSignature)
                dbus_free(cSignature)
                let inner = try DBusType(text)
                return .variant(Variant(try read(inner, from: sub, depth: depth + 1)))
            }
        case .array(.byte):
            return try recurse(iter) { (sub) throws(DBusError) in
                guard dbus_message_iter_get_arg_type(sub) != TypeCode.invalid else { return .bytes([]) }
                var pointer: UnsafeRawPointer?
                var count: Int32 = 0
                withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_fixed_array(sub, $0, &count) }
                guard let pointer, count > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: Int(count))))
            }
        case .array(let element):
            return try recurse(iter) { (sub) throws(DBusError) in
                var items: [Value] = []
                while dbus_message_iter_get_arg_type(sub) != TypeCode.invalid {
                    items.append(try read(element, from: sub, depth: depth + 1))
                    dbus_message_iter_next(sub)
                }
                return .array(element, items)
            }
        case .dictionary(let key, let value):
            return try recurse(iter) { (sub) throws(DBusError) in
                var entries: [DictionaryEntry] = []
                while dbus_message_iter_get_arg_type(sub) == TypeCode.dictEntry {
                    let entry = try recurse(sub) { (pair) throws(DBusError) in
                        let k = try read(key, from: pair, depth: depth + 2)
                        dbus_message_iter_next(pair)
                        return DictionaryEntry(key: k, value: try read(value, from: pair, depth: depth + 2))
                    }
                    entries.append(entry)
                    dbus_message_iter_next(sub)
                }
                return .dictionary(key: key, value: value, entries)
            }
        case .structure(let fields):
            return try recurse(iter) { (sub) throws(DBusError) in
                var values: [Value] = []
                values.reserveCapacity(fields.count)
                for (index, field) in fields.enumerated() {
                    if index > 0 { dbus_message_iter_next(sub) }
                    values.append(try read(field, from: sub, depth: depth + 1))
                }
                return .structure(values)
            }
        }
    }
}
