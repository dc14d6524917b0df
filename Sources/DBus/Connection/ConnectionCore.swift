import CDBus
import Dispatch
import HandoffShared

/// The libdbus connection and everything bound to its lifetime: the loop thread that drives it, signal
/// subscriptions and exported objects.
///
/// All libdbus dispatching happens on `loop`, one thread per connection (``ConnectionLoop``). libdbus calls back
/// into this object (watches, timeouts, and the message filter, which also hands replies to their calls) through C
/// function pointers; those hold one retained reference, dropped when ``close()`` tears the connection down.
///
/// `@unchecked Sendable` is true: `raw` is used through libdbus's own locking (threads are initialised with
/// `dbus_threads_init_default`), and every mutable Swift field lives in `state` behind a lock.
final class ConnectionCore: @unchecked Sendable {
    struct State {
        var closed = false
        var nextID: UInt64 = 1
        var subscriptions: [UInt64: SignalSubscription] = [:]
        var objects = ObjectRegistry()
        /// Well-known names used as signal senders, whose owners are tracked through NameOwnerChanged.
        var watchedNames: Set<BusName> = []
        var owners: [BusName: BusName] = [:]
    }

    let raw: OpaquePointer
    /// The connection's thread; its reply timer serves all reply deadlines, armed for the earliest one.
    let loop: ConnectionLoop
    let state = Locked(State())
    /// The method calls awaiting replies, behind a lock of their own: a call is sent while holding it.
    let calls = Locked(Calls())
    /// The unique name the bus gave this connection.
    let uniqueName: BusName
    /// Messages delivered to this connection, by kind.
    let counters = MessageCounters()

    init(raw: OpaquePointer) {
        self.raw = raw
        self.uniqueName = BusName(trusted: dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ":0.0")
        let weakCore = WeakCore()
        self.loop = ConnectionLoop(
            onDispatch: { weakCore.core?.drain() }, onReplyDeadline: { weakCore.core?.expireReplies() })
        weakCore.core = self
        dbus_connection_set_exit_on_disconnect(raw, 0)
        install()
    }

    deinit {
        dbus_connection_unref(raw)
    }

    /// Schedules a drain of libdbus's incoming queue on the loop.
    func scheduleDispatch() {
        loop.scheduleDispatch()
    }

    /// Dispatches every queued message. Runs on the loop only.
    func drain() {
        guard !state.withLock({ $0.closed }) else { return }
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
    }

    /// Allocates a subscription or registry id.
    func nextID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    /// Closes the connection: pending calls fail with `.disconnected`, signal streams finish, the libdbus
    /// connection is closed and released. Safe to call more than once and from any thread.
    func close() {
        let subscriptions: [SignalSubscription]? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.subscriptions = [:]
                state.objects = ObjectRegistry()
            }
            return Array(state.subscriptions.values)
        }
        guard let subscriptions else { return }
        failCalls()
        for subscription in subscriptions { subscription.finish() }
        loop.async {
            self.loop.setReplyDeadline(nil)
            self.uninstall()
            self.loop.stop()
        }
    }

    /// The connection was lost (the bus went away): fail what waits on it.
    func handleDisconnect() {
        close()
    }
}

/// The core as the loop's callbacks see it: weakly, so the loop (which the core owns) does not keep it alive.
private final class WeakCore: @unchecked Sendable {
    // Written once, before the loop can call back (the loop runs nothing until install() adds a watch or a job).
    weak var core: ConnectionCore?
}
