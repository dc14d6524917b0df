import CDBus
import Dispatch

/// The libdbus connection and everything bound to its lifetime: the dispatch queue, the watch and timeout
/// sources, signal subscriptions and exported objects.
///
/// All libdbus dispatching happens on `queue`, one serial queue per connection. libdbus calls back into this
/// object (watches, timeouts, the message filter, reply notifications) through C function pointers; those hold
/// one retained reference, dropped when ``close()`` tears the connection down.
///
/// `@unchecked Sendable` is true: `raw` is used through libdbus's own locking (threads are initialised with
/// `dbus_threads_init_default`), and every mutable Swift field lives in `state` behind a lock.
final class ConnectionCore: @unchecked Sendable {
    struct State {
        var closed = false
        var nextID: UInt64 = 1
        var subscriptions: [UInt64: SignalSubscription] = [:]
        var objects = ObjectRegistry()
        var waiters: [ObjectIdentifier: PendingReply] = [:]
        /// The deadline `replyTimer` is set for, nil when it is disarmed.
        var armedDeadline: DispatchTime?
        /// Well-known names used as signal senders, whose owners are tracked through NameOwnerChanged.
        var watchedNames: Set<BusName> = []
        var owners: [BusName: BusName] = [:]
    }

    let raw: OpaquePointer
    let queue: DispatchQueue
    /// One timer per connection for all reply deadlines, armed for the earliest one.
    let replyTimer: any DispatchSourceTimer
    let state = Locked(State())
    /// The unique name the bus gave this connection.
    let uniqueName: BusName
    /// Messages delivered to this connection, by kind.
    let counters = MessageCounters()

    init(raw: OpaquePointer, label: String) {
        self.raw = raw
        self.queue = DispatchQueue(label: label)
        self.replyTimer = DispatchSource.makeTimerSource(queue: queue)
        self.uniqueName = BusName(trusted: dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ":0.0")
        dbus_connection_set_exit_on_disconnect(raw, 0)
        replyTimer.setEventHandler { [weak self] in self?.expireReplies() }
        replyTimer.schedule(deadline: .distantFuture)
        replyTimer.resume()
        install()
    }

    deinit {
        dbus_connection_unref(raw)
    }

    /// Schedules a drain of libdbus's incoming queue on the connection queue.
    func scheduleDispatch() {
        queue.async { self.drain() }
    }

    /// Dispatches every queued message. Runs on `queue` only.
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
        let taken: ([SignalSubscription], [ReplyWaiter])? = state.withLock { state in
            guard !state.closed else { return nil }
            state.closed = true
            defer {
                state.subscriptions = [:]
                state.waiters = [:]
                state.objects = ObjectRegistry()
            }
            return (Array(state.subscriptions.values), state.waiters.values.map(\.waiter))
        }
        guard let (subscriptions, waiters) = taken else { return }
        for subscription in subscriptions { subscription.finish() }
        queue.async {
            for waiter in waiters { waiter.cancelPending(with: DBusError(.disconnected, "the connection was closed")) }
            self.replyTimer.cancel()
            self.uninstall()
        }
    }

    /// The connection was lost (the bus went away): fail what waits on it.
    func handleDisconnect() {
        close()
    }
}
