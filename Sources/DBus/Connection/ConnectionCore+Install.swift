import CDBus
import Dispatch

/// The C callbacks libdbus uses to drive the connection. Each receives the core as an unretained pointer; the one
/// retained reference is owned by the watch functions' user data and released in ``ConnectionCore/uninstall()``.
extension ConnectionCore {
    static func from(_ data: UnsafeMutableRawPointer?) -> ConnectionCore? {
        data.map { Unmanaged<ConnectionCore>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The one message filter; a single function so that `uninstall()` can remove exactly it.
    static let messageFilter: DBusHandleMessageFunction = { _, message, data in
        guard let message, let core = ConnectionCore.from(data) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        return core.filter(Message(retaining: message))
    }

    func install() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        let unretained = Unmanaged.passUnretained(self).toOpaque()

        dbus_connection_set_watch_functions(
            raw,
            { watch, data in
                guard let watch, let core = ConnectionCore.from(data) else { return 0 }
                let source = DispatchWatch(watch: watch, queue: core.queue) { [weak core] in core?.drain() }
                dbus_watch_set_data(watch, Unmanaged.passRetained(source).toOpaque()) { pointer in
                    guard let pointer else { return }
                    let source = Unmanaged<DispatchWatch>.fromOpaque(pointer).takeRetainedValue()
                    source.cancel()
                }
                return 1
            },
            { watch, _ in
                guard let watch, let pointer = dbus_watch_get_data(watch) else { return }
                Unmanaged<DispatchWatch>.fromOpaque(pointer).takeUnretainedValue().cancel()
            },
            { watch, _ in
                guard let watch, let pointer = dbus_watch_get_data(watch) else { return }
                Unmanaged<DispatchWatch>.fromOpaque(pointer).takeUnretainedValue()
                    .setEnabled(dbus_watch_get_enabled(watch) != 0)
            },
            retained,
            { data in
                guard let data else { return }
                Unmanaged<ConnectionCore>.fromOpaque(data).release()
            })

        dbus_connection_set_timeout_functions(
            raw,
            { timeout, data in
                guard let timeout, let core = ConnectionCore.from(data) else { return 0 }
                let source = DispatchTimeout(timeout: timeout, queue: core.queue) { [weak core] in core?.drain() }
                dbus_timeout_set_data(timeout, Unmanaged.passRetained(source).toOpaque()) { pointer in
                    guard let pointer else { return }
                    Unmanaged<DispatchTimeout>.fromOpaque(pointer).takeRetainedValue().cancel()
                }
                return 1
            },
            { timeout, _ in
                guard let timeout, let pointer = dbus_timeout_get_data(timeout) else { return }
                Unmanaged<DispatchTimeout>.fromOpaque(pointer).takeUnretainedValue().cancel()
            },
            { timeout, _ in
                guard let timeout, let pointer = dbus_timeout_get_data(timeout) else { return }
                Unmanaged<DispatchTimeout>.fromOpaque(pointer).takeUnretainedValue()
                    .setEnabled(dbus_timeout_get_enabled(timeout) != 0)
            },
            unretained, nil)

        dbus_connection_set_dispatch_status_function(
            raw,
            { _, status, data in
                guard status == DBUS_DISPATCH_DATA_REMAINS, let core = ConnectionCore.from(data) else { return }
                core.scheduleDispatch()
            },
            unretained, nil)

        // No wakeup-main function: libdbus uses it to make a poll loop re-read the watch flags after another
        // thread queued a message, but here each toggle already resumes or suspends its Dispatch source.

        _ = dbus_connection_add_filter(raw, Self.messageFilter, unretained, nil)

        scheduleDispatch()
    }

    /// Tears down in reverse order of ``install()``. Runs on `queue`; the last line releases the core's
    /// self-reference held by libdbus.
    func uninstall() {
        dbus_connection_remove_filter(raw, Self.messageFilter, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_close(raw)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        // This releases the reference libdbus held on `self`; the enclosing queue block still holds another.
        // The connection itself stays allocated (closed) until `deinit`, so a task still holding the core can
        // call libdbus on it safely: calls on a closed connection fail cleanly.
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
    }
}
