import CDBus
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Maps one libdbus `DBusWatch` (a socket libdbus wants to read or write) onto Dispatch read/write sources on the
/// connection's serial queue. Enabled watches are resumed sources; disabled ones are suspended, so an idle
/// connection has no timer and no polling, only a kernel wait on its socket.
///
/// libdbus calls add/remove/toggle with its connection lock held and from any thread; the lock here keeps the
/// suspend/resume bookkeeping consistent. `@unchecked Sendable` is true: mutable state is only touched under
/// `state`'s lock, and `watch` is used only on the queue while not cancelled.
final class DispatchWatch: @unchecked Sendable {
    private struct State {
        var sources: [any DispatchSourceProtocol] = []
        var resumed = false
        var cancelled = false
    }

    private let watch: OpaquePointer
    private let descriptor: Int32
    private let state = Locked(State())

    init(watch: OpaquePointer, queue: DispatchQueue, onEvent: @escaping @Sendable () -> Void) {
        self.watch = watch
        let descriptor = dbus_watch_get_unix_fd(watch)
        self.descriptor = descriptor
        let flags = dbus_watch_get_flags(watch)
        var sources: [any DispatchSourceProtocol] = []
        if flags & DBUS_WATCH_READABLE.rawValue != 0 {
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(DBUS_WATCH_READABLE.rawValue, onEvent) }
            sources.append(source)
        }
        if flags & DBUS_WATCH_WRITABLE.rawValue != 0 {
            let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(DBUS_WATCH_WRITABLE.rawValue, onEvent) }
            sources.append(source)
        }
        state.withLock { $0.sources = sources }
        setEnabled(dbus_watch_get_enabled(watch) != 0)
    }

    /// Runs on the queue when the socket is ready. libdbus reads at most one buffer per `dbus_watch_handle`, so
    /// while the socket still holds bytes (FIONREAD) it is handled again here, instead of paying a Dispatch
    /// event round trip per chunk of a large message; bounded so one busy peer cannot starve the queue.
    private func handle(_ flag: UInt32, _ onEvent: @Sendable () -> Void) {
        guard !state.withLock({ $0.cancelled }) else { return }
        dbus_watch_handle(watch, flag)
        if flag == DBUS_WATCH_READABLE.rawValue {
            var rounds = 0
            var available: Int32 = 0
            while rounds < 256, ioctl(descriptor, UInt(FIONREAD), &available) == 0, available > 0,
                !state.withLock({ $0.cancelled }), dbus_watch_get_enabled(watch) != 0
            {
                dbus_watch_handle(watch, flag)
                rounds += 1
            }
        }
        onEvent()
    }

    /// Resumes or suspends the sources to follow libdbus's enabled flag.
    func setEnabled(_ enabled: Bool) {
        state.withLock { state in
            guard !state.cancelled, state.resumed != enabled else { return }
            state.resumed = enabled
            for source in state.sources {
                if enabled { source.resume() } else { source.suspend() }
            }
        }
    }

    /// Stops watching for good. A source must be resumed once more before release, or Dispatch traps.
    func cancel() {
        state.withLock { state in
            guard !state.cancelled else { return }
            state.cancelled = true
            for source in state.sources {
                source.cancel()
                if !state.resumed { source.resume() }
            }
            state.sources = []
        }
    }
}
