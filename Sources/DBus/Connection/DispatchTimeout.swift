import CDBus
import Dispatch

/// Maps one libdbus `DBusTimeout` (e.g. a method call's reply deadline) onto a Dispatch timer on the
/// connection's queue, armed only while libdbus has the timeout enabled.
final class DispatchTimeout: @unchecked Sendable {
    private struct State {
        var timer: (any DispatchSourceTimer)?
        var cancelled = false
    }

    private let timeout: OpaquePointer
    private let queue: DispatchQueue
    private let onEvent: @Sendable () -> Void
    private let state = Locked(State())

    init(timeout: OpaquePointer, queue: DispatchQueue, onEvent: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        self.queue = queue
        self.onEvent = onEvent
        setEnabled(dbus_timeout_get_enabled(timeout) != 0)
    }

    /// Arms a fresh timer for the current interval, or disarms it.
    func setEnabled(_ enabled: Bool) {
        let interval = Int(dbus_timeout_get_interval(timeout))
        state.withLock { state in
            guard !state.cancelled else { return }
            state.timer?.cancel()
            state.timer = nil
            guard enabled else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(max(interval, 1)))
            timer.setEventHandler { [weak self] in self?.fire() }
            timer.resume()
            state.timer = timer
        }
    }

    private func fire() {
        guard !state.withLock({ $0.cancelled }) else { return }
        dbus_timeout_handle(timeout)
        onEvent()
    }

    /// Stops the timer for good.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.timer?.cancel()
            state.timer = nil
        }
    }
}
