import CDBus
import Dispatch
import HandoffShared
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The thread one connection runs on: blocked in `poll(2)` on the connection's socket (libdbus's enabled
/// watches), a pipe that other threads write a byte to wake it, and the nearest deadline (libdbus's enabled
/// timeouts and the connection's reply timer). Every watch and timeout is handled, every message dispatched and
/// every queued job run here, one at a time.
///
/// A reply therefore goes from the socket to the awaiting task with one thread wake-up (this thread's), where
/// Dispatch sources took three (its event thread, then a worker for the connection's queue, then the task's
/// executor). An idle connection costs one sleeping thread and no wake-ups at all.
///
/// libdbus calls the watch and timeout functions with its connection lock held, from any thread; the lock here
/// only guards our bookkeeping. Watches are handled only on this thread and removed (at close) only by jobs that
/// run on it, so a watch is never used after libdbus let it go. `@unchecked Sendable` is true: the libdbus
/// pointers are only dereferenced on this thread, and all mutable state is behind `state` (a pthread mutex, which
/// ThreadSanitizer understands; `Synchronization.Mutex` on Linux is a bare futex it cannot see).
final class ConnectionLoop: @unchecked Sendable {
    private struct Watch {
        let fd: Int32
        let flags: UInt32
        var enabled: Bool
    }

    private struct Timeout {
        let interval: UInt64
        /// The next expiry (DispatchTime nanoseconds) while enabled, nil while disabled.
        var deadline: UInt64?
    }

    private struct State {
        var watches: [UInt: Watch] = [:]
        var timeouts: [UInt: Timeout] = [:]
        var jobs: [@Sendable () -> Void] = []
        /// Task jobs (this loop is a `TaskExecutor`), run after the jobs above.
        var taskJobs: [UnownedJob] = []
        var dispatchPending = false
        var replyDeadline: UInt64?
        var stopped = false
        /// A watch was added, removed or toggled since the poll set was last built.
        var watchesChanged = true
    }

    private let state = Locked(State())
    /// The loop's thread (`pthread_t`), 0 until it runs: read on every wake-up decision, so not behind the lock.
    private let thread = Atomic<UInt>(0)
    /// The wake-up pipe: the loop polls `wakeDescriptor`, others write to `wakeWriter`.
    private let wakeDescriptor: Int32
    private let wakeWriter: Int32
    /// Dispatches libdbus's incoming queue (after reads, or when libdbus reports data remaining).
    private let onDispatch: @Sendable () -> Void
    /// The reply timer fired.
    private let onReplyDeadline: @Sendable () -> Void

    init(onDispatch: @escaping @Sendable () -> Void, onReplyDeadline: @escaping @Sendable () -> Void) {
        self.onDispatch = onDispatch
        self.onReplyDeadline = onReplyDeadline
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed: errno \(errno)")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
        let box = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<ConnectionLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            return nil
        }, box)
        precondition(created == 0, "pthread_create failed: \(created)")
        pthread_detach(thread)
    }

    deinit {
        close(wakeDescriptor)
        close(wakeWriter)
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrent: Bool {
        thread.load(ordering: .relaxed) == pthread_self()
    }

    /// Runs `job` on the loop thread, after whatever is already queued.
    func async(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        wakeUnlessCurrent()
    }

    /// Asks for a dispatch of libdbus's incoming queue. On the loop thread (where libdbus reads, and so where it
    /// almost always reports new data) this costs nothing; from elsewhere it wakes the loop.
    func scheduleDispatch() {
        state.withLock { $0.dispatchPending = true }
        wakeUnlessCurrent()
    }

    /// Arms the reply timer for `deadline`, or disarms it (nil).
    func setReplyDeadline(_ deadline: DispatchTime?) {
        state.withLock { $0.replyDeadline = deadline?.uptimeNanoseconds }
        wakeUnlessCurrent()
    }

    /// Ends the loop once the current iteration's jobs have run. Called from a job (the connection's teardown).
    func stop() {
        state.withLock { $0.stopped = true }
        wakeUnlessCurrent()
    }

    // MARK: libdbus watches and timeouts (called by libdbus, any thread)

    func addWatch(_ watch: OpaquePointer) {
        let entry = Watch(fd: dbus_watch_get_unix_fd(watch), flags: dbus_watch_get_flags(watch),
                          enabled: dbus_watch_get_enabled(watch) != 0)
        state.withLock {
            $0.watches[UInt(bitPattern: watch)] = entry
            $0.watchesChanged = true
        }
        wakeUnlessCurrent()
    }

    func removeWatch(_ watch: OpaquePointer) {
        state.withLock {
            $0.watches.removeValue(forKey: UInt(bitPattern: watch))
            $0.watchesChanged = true
        }
        wakeUnlessCurrent()
    }

    func toggleWatch(_ watch: OpaquePointer) {
        let enabled = dbus_watch_get_enabled(watch) != 0
        state.withLock {
            $0.watches[UInt(bitPattern: watch)]?.enabled = enabled
            $0.watchesChanged = true
        }
        wakeUnlessCurrent()
    }

    /// A new timeout starts its interval now if enabled.
    func addTimeout(_ timeout: OpaquePointer) {
        restartTimeout(timeout)
    }

    func removeTimeout(_ timeout: OpaquePointer) {
        state.withLock { _ = $0.timeouts.removeValue(forKey: UInt(bitPattern: timeout)) }
        wakeUnlessCurrent()
    }

    /// libdbus re-enabling a timeout restarts its interval; the interval itself may have changed.
    func toggleTimeout(_ timeout: OpaquePointer) {
        restartTimeout(timeout)
    }

    /// Records `timeout` with its current interval, due one interval from now when enabled, else disarmed.
    private func restartTimeout(_ timeout: OpaquePointer) {
        let interval = UInt64(max(dbus_timeout_get_interval(timeout), 0)) * 1_000_000
        let enabled = dbus_timeout_get_enabled(timeout) != 0
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock {
            $0.timeouts[UInt(bitPattern: timeout)] = Timeout(interval: interval, deadline: enabled ? now + interval : nil)
        }
        wakeUnlessCurrent()
    }

    // MARK: the thread

    private func wakeUnlessCurrent() {
        guard !isCurrent else { return }
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)          // a full pipe (EAGAIN) already means "wake up"

    }

    private func run() {
        thread.store(pthread_self(), ordering: .relaxed)
        // The poll set: the wake-up pipe, then the enabled watches (their keys in `polled`), rebuilt only when a
        // watch changed.
        var fds: [pollfd] = []
        var polled: [UInt] = []
        while true {
            let (jobs, taskJobs, dispatch, stopped) = state.withLock { state in
                defer {
                    state.jobs = []
                    state.taskJobs = []
                    state.dispatchPending = false
                }
                return (state.jobs, state.taskJobs, state.dispatchPending, state.stopped)
            }
            for job in jobs { job() }
            if dispatch { onDispatch() }
            for job in taskJobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            if stopped {
                handOverTaskJobs()
                break
            }
            if !jobs.isEmpty || !taskJobs.isEmpty { continue }  // they may have queued more work or changed watches

            let (nearest, descriptors) = state.withLock { state -> (UInt64?, [(UInt, pollfd)]?) in
                var nearest = state.replyDeadline
                for timeout in state.timeouts.values {
                    if let deadline = timeout.deadline { nearest = min(nearest ?? deadline, deadline) }
                }
                guard state.watchesChanged else { return (nearest, nil) }
                state.watchesChanged = false
                let list = state.watches.compactMap { key, watch -> (UInt, pollfd)? in
                    guard watch.enabled else { return nil }
                    var events: Int16 = 0
                    if watch.flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
                    if watch.flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
                    return (key, pollfd(fd: watch.fd, events: events, revents: 0))
                }
                return (nearest, list)
            }
            if let descriptors {
                fds.removeAll(keepingCapacity: true)
                polled.removeAll(keepingCapacity: true)
                fds.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
                for (key, fd) in descriptors {
                    polled.append(key)
                    fds.append(fd)
                }
            } else {
                for index in fds.indices { fds[index].revents = 0 }
            }
            var timeoutMS: Int32 = -1
            if let nearest {
                let now = DispatchTime.now().uptimeNanoseconds
                timeoutMS = nearest <= now ? 0 : Int32(clamping: (nearest - now + 999_999) / 1_000_000)
            }
            let ready = poll(&fds, nfds_t(fds.count), timeoutMS)
            if ready < 0 && errno != EINTR { continue }
            if fds[0].revents != 0 {
                var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
                _ = withUnsafeMutableBytes(of: &bytes) { read(wakeDescriptor, $0.baseAddress, $0.count) }
            }
            var handled = false
            for (index, key) in polled.enumerated() where fds[index + 1].revents != 0 {
                handled = handle(key, revents: fds[index + 1].revents) || handled
            }
            if handled {
                state.withLock { $0.dispatchPending = false }  // this dispatch serves what the handling queued
                onDispatch()
            }
            if let nearest, nearest <= DispatchTime.now().uptimeNanoseconds { fireTimers() }
        }
    }

    /// Hands a ready socket to libdbus. libdbus reads at most 2 KiB per `dbus_watch_handle`, so while no whole
    /// message is queued yet and the socket still holds bytes (FIONREAD), it is handled again, instead of paying a
    /// poll round per chunk of a large message; bounded so one busy peer cannot starve the loop's other work. Once
    /// a message is complete (libdbus reported it through ``scheduleDispatch()``), it is dispatched first: a small
    /// reply costs no `ioctl`.
    private func handle(_ key: UInt, revents: Int16) -> Bool {
        guard let watch = state.withLock({ $0.watches[key] }), watch.enabled,
              let pointer = OpaquePointer(bitPattern: key) else { return false }
        var flags: UInt32 = 0
        if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
        if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
        if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
        dbus_watch_handle(pointer, flags)
        guard flags & DBUS_WATCH_READABLE.rawValue != 0 else { return true }
        var rounds = 0
        var available: Int32 = 0
        while rounds < 256, state.withLock({ !$0.dispatchPending && $0.watches[key]?.enabled ?? false }),
              ioctl(watch.fd, UInt(FIONREAD), &available) == 0, available > 0
        {
            dbus_watch_handle(pointer, DBUS_WATCH_READABLE.rawValue)
            rounds += 1
        }
        return true
    }

    /// Runs libdbus's expired timeouts (each restarts its interval) and the reply timer.
    private func fireTimers() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (expired, replies) = state.withLock { state -> ([UInt], Bool) in
            var expired: [UInt] = []
            for (key, timeout) in state.timeouts {
                if let deadline = timeout.deadline, deadline <= now {
                    expired.append(key)
                    state.timeouts[key]?.deadline = now + timeout.interval
                }
            }
            var replies = false
            if let deadline = state.replyDeadline, deadline <= now {
                state.replyDeadline = nil
                replies = true
            }
            return (expired, replies)
        }
        for key in expired {
            // Still registered? An earlier handler in this round may have removed it.
            guard state.withLock({ $0.timeouts[key] != nil }), let pointer = OpaquePointer(bitPattern: key) else {
                continue
            }
            dbus_timeout_handle(pointer)
        }
        if !expired.isEmpty { onDispatch() }
        if replies { onReplyDeadline() }
    }
}

/// The loop is also a task executor: a task that prefers it (``Connection/executor``) runs on the connection's own
/// thread, so a reply resumes it right where it was read, with no thread switch at all.
extension ConnectionLoop: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let running = state.withLock { state in
            if !state.stopped { state.taskJobs.append(job) }
            return !state.stopped
        }
        if running {
            wakeUnlessCurrent()
        } else {
            runElsewhere(job)
        }
    }

    /// After the connection closed, tasks that still prefer this executor run on the default executor instead.
    fileprivate func handOverTaskJobs() {
        let left = state.withLock { state in
            defer { state.taskJobs = [] }
            return state.taskJobs
        }
        for job in left { runElsewhere(job) }
    }

    /// Hands a job to the default executor (not Dispatch directly: handoffd's is its own loop, and a Dispatch worker
    /// would start libdispatch's 1 Hz monitor; Docs/performance.md).
    private func runElsewhere(_ job: UnownedJob) {
        globalConcurrentExecutor.enqueue(job)
    }
}
