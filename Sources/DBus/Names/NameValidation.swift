import CDBus

/// Runs one of libdbus's `dbus_validate_*` functions and turns a refusal into a ``DBusError``.
///
/// libdbus is the authority on the wire syntax, so the Swift newtypes defer to it rather than re-implement the
/// rules. The error message libdbus gives ("Object path was not valid: 'x'") is kept as the error's text.
func validateName(
    _ string: String,
    kind: String,
    with validator: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
) throws(DBusError) {
    if string.utf8.contains(0) {
        throw DBusError(.invalidName, "\(kind) '\(string)' contains a NUL byte")
    }
    var cError = CDBus.DBusError()
    dbus_error_init(&cError)
    defer { dbus_error_free(&cError) }
    let ok = string.withCString { validator($0, &cError) }
    if ok == 0 {
        let detail = cError.message.map { String(cString: $0) } ?? "invalid"
        throw DBusError(.invalidName, "\(kind) '\(string)' is not valid: \(detail)")
    }
}
