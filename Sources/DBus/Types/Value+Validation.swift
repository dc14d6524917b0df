extension Value {
    /// Checks, before anything reaches libdbus, that this value can be sent as `type`: every array element and
    /// dictionary entry has the declared type, structures are non-empty, and strings hold no NUL byte.
    ///
    /// libdbus aborts the process on such mistakes, so this check is what keeps bad input a thrown error.
    func validate(as type: DBusType, depth: Int = 0) throws(DBusError) {
        guard depth < 64 else {
            throw DBusError(.invalidValue, "value is nested deeper than the D-Bus limit of 64 containers")
        }
        switch (self, type) {
        case (.byte, .byte), (.boolean, .boolean), (.int16, .int16), (.uint16, .uint16), (.int32, .int32),
            (.uint32, .uint32), (.int64, .int64), (.uint64, .uint64), (.double, .double), (.objectPath, .objectPath),
            (.signature, .signature), (.unixFD, .unixFD), (.bytes, .array(.byte)):
            return
        case (.string(let text), .string):
            if text.utf8.contains(0) {
                throw DBusError(.invalidValue, "string contains a NUL byte, which D-Bus cannot carry")
            }
        case (.variant(let inner), .variant):
            try inner.value.validate(as: inner.value.type, depth: depth + 1)
        case (.array(let element, let items), .array(let expected)) where element == expected:
            for item in items { try item.validate(as: element, depth: depth + 1) }
        case (.dictionary(let key, let value, let entries), .dictionary(let expectedKey, let expectedValue))
        where key == expectedKey && value == expectedValue:
            guard key.isBasic else {
                throw DBusError(.invalidValue, "dictionary key type '\(key)' is not a basic type")
            }
            for entry in entries {
                try entry.key.validate(as: key, depth: depth + 1)
                try entry.value.validate(as: value, depth: depth + 1)
            }
        case (.structure(let fields), .structure(let types)) where fields.count == types.count && !fields.isEmpty:
            for (field, fieldType) in zip(fields, types) { try field.validate(as: fieldType, depth: depth + 1) }
        default:
            throw DBusError(.invalidValue, "value of type '\(self.type)' where '\(type)' is required")
        }
    }
}
