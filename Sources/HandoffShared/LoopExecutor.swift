@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import CLinuxEvents
#if canImport(Glibc)
import Glibc
#endif

/// Every job of a process's Swift concurrency on one thread of its own, with timers that cost nothing until they are
/// due: handoffd's main and default executor, installed with Swift 6.3's experimental
/// `_createExecutors(factory:)` before its first task (``ProgramExecutors``, from handoffd's and the CLI's `main`).
///
/// Why: on Linux the default executor is Dispatch's global queues, and the first Dispatch worker starts libdispatch's
/// workqueue monitor, a 1 Hz timer on its manager thread for the rest of the process's life (Docs/performance.md,
/// "At rest"). With this executor an idle daemon sleeps in one `poll(2)` until a job arrives or a timer is due.
///
/// - Jobs run in the order they were enqueued, one at a time, on the thread that called ``run()``; that thread is
///   the main actor's as well (``MainExecutor``).
/// - Timers (`Task.sleep`, `clock.sleep`: ``SchedulingExecutor``) are kept in a list sorted by deadline; the earliest
///   is armed on a timerfd on `CLOCK_BOOTTIME`, so a `ContinuousClock` deadline passes on time across a suspend. A
///   cancelled sleep's timer stays until its deadline and then runs to nothing (the runtime's sleep resumes the task
///   at once on cancellation): one wake-up then, none before.
/// - Other threads (the D-Bus and L2CAP threads, resuming continuations) wake the loop through an eventfd, and only
///   when it sleeps: a busy loop takes new jobs under the lock alone.
///
/// A job must not block waiting for another job of this executor: there is no second thread to run it. The
/// daemon's blocking waits are on threads of their own (a D-Bus connection's loop, a socket's poll thread).
///
/// `@unchecked Sendable` is true because the mutable state is in a `Locked` and the descriptors are set once.
package final class LoopExecutor: MainExecutor, TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    private struct Timer {
        let deadline: ContinuousClock.Instant
        let job: UnownedJob
    }

    private struct State {
        var ready: [UnownedJob] = []
        /// Latest first, so the earliest is `last`; a timer goes before those due at the same instant, so equal
        /// deadlines run in the order they were set.
        var timers: [Timer] = []
        /// The deadline the timerfd is armed for, if any.
        var armed: ContinuousClock.Instant?
        /// The loop is in (or about to enter) `poll(2)`: an enqueuer must wake it.
        var sleeping = false
        var stopped = false
        var thread: pthread_t?
    }

    private let state = Locked(State())
    /// Written to wake the loop; read (reset) by the loop.
    private let wake: Int32
    /// Armed for the earliest timer's deadline, on `CLOCK_BOOTTIME`.
    private let timer: Int32

    /// A new executor; nothing runs until a thread calls ``run()``. Descriptors it cannot have are a
    /// programming error (the process is out of descriptors before it has started).
    package init() {
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        precondition(wake >= 0 && timer >= 0, "LoopExecutor: eventfd/timerfd failed: errno \(errno)")
    }

    deinit {
        close(wake)
        close(timer)
    }

    // MARK: Enqueueing (any thread)

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wakeUp = state.withLock { state in
            state.ready.append(job)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if wakeUp { signal() }
    }

    package func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?,
                                   clock: C) {
        let job = UnownedJob(job)
        let deadline: ContinuousClock.Instant
        if let instant = instant as? ContinuousClock.Instant {
            deadline = instant
        } else if let delay = clock.now.duration(to: instant) as? Duration {
            deadline = ContinuousClock.now.advanced(by: max(.zero, delay))
        } else {
            deadline = ContinuousClock.now  // a clock without `Duration`s: no way to place it, so run it now
        }
        let wakeUp = state.withLock { state in
            let entry = Timer(deadline: deadline, job: job)
            // Binary search for the first index whose timer is due no later than this one (latest first).
            var low = 0, high = state.timers.count
            while low < high {
                let middle = (low + high) / 2
                if state.timers[middle].deadline > deadline { low = middle + 1 } else { high = middle }
            }
            state.timers.insert(entry, at: low)
            // A sleeping loop re-arms only if this timer is due before the one it waits for.
            guard state.sleeping, state.armed.map({ deadline < $0 }) ?? true else { return false }
            state.sleeping = false
            return true
        }
        if wakeUp { signal() }
    }

    private func signal() {
        var one: UInt64 = 1
        _ = write(wake, &one, MemoryLayout<UInt64>.size)  // an eventfd counter at its limit still wakes the loop
    }

    /// Timers not yet due (a cancelled sleep's included, until its deadline).
    package var pendingTimers: Int { state.withLock { $0.timers.count } }

    // MARK: Isolation

    /// Whether the caller is on the loop's thread.
    package var isCurrent: Bool {
        state.withLock { $0.thread }.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    package func checkIsolated() {
        precondition(isCurrent, "LoopExecutor: not on the executor's thread")
    }

    package func isIsolatingCurrentContext() -> Bool? { isCurrent }

    // MARK: The loop (one thread)

    private enum Step {
        case stop
        /// Run the jobs just swapped into `spare`.
        case run
        /// Sleep, first arming the timerfd for this delay (`.some(nil)`: disarming it), if it changed.
        case sleep(arm: Duration??)
    }

    /// Runs jobs and timers on the calling thread until ``stop()``.
    package func run() throws {
        state.withLock { $0.thread = pthread_self() }
        var spare: [UnownedJob] = []
        loop: while true {
            let step = state.withLock { state -> Step in
                if state.stopped { return .stop }
                let now = ContinuousClock.now
                while let earliest = state.timers.last, earliest.deadline <= now {
                    state.ready.append(state.timers.removeLast().job)
                }
                if !state.ready.isEmpty {
                    swap(&spare, &state.ready)
                    return .run
                }
                state.sleeping = true
                let earliest = state.timers.last?.deadline
                guard earliest != state.armed else { return .sleep(arm: nil) }
                state.armed = earliest
                return .sleep(arm: .some(earliest.map { now.duration(to: $0) }))
            }
            switch step {
            case .stop:
                break loop
            case .run:
                for job in spare {
                    job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                }
                spare.removeAll(keepingCapacity: true)  // handed back to `ready` by the next swap
            case .sleep(let arm):
                if let arm { setTimer(after: arm) }
                waitForEvents()
            }
        }
        state.withLock { $0.thread = nil }
    }

    /// Ends ``run()`` after the job it is running; jobs still queued are not run.
    package func stop() {
        state.withLock { $0.stopped = true }
        signal()
    }

    private func setTimer(after delay: Duration?) {
        var value = itimerspec()
        var flags: Int32 = 0
        if let delay {
            var now = timespec()
            clock_gettime(CLOCK_BOOTTIME, &now)
            let (seconds, attoseconds) = max(delay, .nanoseconds(1)).components
            // Rounded up to the next nanosecond, so the timer never fires before the deadline it stands for.
            let nanoseconds = Int(now.tv_nsec) + Int((attoseconds + 999_999_999) / 1_000_000_000)
            value.it_value.tv_sec = now.tv_sec + Int(seconds) + nanoseconds / 1_000_000_000
            value.it_value.tv_nsec = nanoseconds % 1_000_000_000
            flags = Int32(TFD_TIMER_ABSTIME)
        }
        _ = timerfd_settime(timer, flags, &value, nil)
    }

    private func waitForEvents() {
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: timer, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&descriptors, 2, -1)
        var count: UInt64 = 0
        if ready > 0 && descriptors[0].revents != 0 { _ = read(wake, &count, MemoryLayout<UInt64>.size) }
        let fired = ready > 0 && descriptors[1].revents != 0
        if fired { _ = read(timer, &count, MemoryLayout<UInt64>.size) }
        state.withLock { state in
            state.sleeping = false
            if fired { state.armed = nil }  // re-armed for whatever is earliest now
        }
    }
}

/// A whole program on one ``LoopExecutor``: handoffd's and the CLI's `main`. ``run(_:)`` installs the loop as the
/// process's main and default executor (Swift 6.3's experimental `_createExecutors(factory:)`, which must come
/// before the first task), starts `main` in a task on it and runs the loop on the calling thread, the main thread.
///
/// The one static in the package: `_createExecutors(factory:)` takes a type, and the runtime keeps its executors for
/// the life of the process in any case.
package enum ProgramExecutors: ExecutorFactory {
    package static let loop = LoopExecutor()
    package static var mainExecutor: any MainExecutor { loop }
    package static var defaultExecutor: any TaskExecutor { loop }

    /// Runs `main` on the loop until it exits the process, so it does not return (it is not declared `Never` only so
    /// that `main.swift` may declare functions after the call). Call it from a synchronous `main` before anything
    /// has created a task.
    package static func run(_ main: @escaping @Sendable () async -> Never) {
        _createExecutors(factory: Self.self)
        Task { await main() }
        do {
            try loop.run()
        } catch {
            // Unreachable: the loop's run() throws nothing; its protocol requirement may.
        }
        fatalError("the program's executor stopped before the program exited")
    }
}
