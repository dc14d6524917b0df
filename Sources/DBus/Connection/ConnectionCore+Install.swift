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
                core.loop.addWatch(watch)
                return 1
            },
            { watch, data in
                guard let watch, let core = ConnectionCore.from(data) else { return }
                core.loop.removeWatch(watch)
            },
            { watch, data in
                guard let watch, let core = ConnectionCore.from(data) else { return }
                core.loop.toggleWatch(watch)
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
                core.loop.addTimeout(timeout)
                return 1
            },
            { timeout, data in
                guard let timeout, let core = ConnectionCore.from(data) else { return }
                core.loop.removeTimeout(timeout)
            },
            { timeout, data in
                guard let timeout, let core = ConnectionCore.from(data) else { return }
                core.loop.toggleTimeout(timeout)
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
        // thread queued a message, but here each toggle already wakes the loop.

        _ = dbus_connection_add_filter(raw, Self.messageFilter, unretained, nil)

        scheduleDispatch()
    }

    /// Tears down in reverse order of ``install()``. Runs on the loop (so no watch is in use while libdbus drops
    /// it); the last line releases the core's self-reference held by libdbus.
    func uninstall() {
        dbus_connection_remove_filter(raw, Self.messageFilter, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_close(raw)
        dbus_connection_set_dispatch_status_function(raw, nil, nil, nil)
        dbus_connection_set_timeout_functions(raw, nil, nil, nil, nil, nil)
        // This releases the reference libdbus held on `self`; the enclosing loop job still holds another.
        // The connection itself stays allocated (closed) until `deinit`, so a task still holding the core can
        // call libdbus on it safely: calls on a closed connection fail cleanly.
        dbus_connection_set_watch_functions(raw, nil, nil, nil, nil, nil)
    }
}
