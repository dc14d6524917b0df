// bench/idle-wakeups.sh's candidate: every task on one thread of our own, installed with Swift 6.3's experimental
// `_createExecutors(factory:)` before the first task, so Dispatch's root queues (and the workqueue monitor that
// ticks at 1 Hz once a Dispatch worker has run) are never used. Timers (`Task.sleep`) wait in
// `pthread_cond_timedwait` until the earliest deadline, so an idle process sleeps until something is due.
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Glibc

final class LoopExecutor: MainExecutor, TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var ready: [UnownedJob] = []                                       // guarded by mutex
    private var timers: [(deadline: ContinuousClock.Instant, job: UnownedJob)] = []   // guarded by mutex
    private var stopped = false                                                // guarded by mutex

    init() {
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&condition, &attributes)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        locked { ready.append(job) }
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        let delay = (clock.now.duration(to: instant) as? Duration) ?? .zero
        let job = UnownedJob(job)
        locked { timers.append((ContinuousClock.now + delay, job)) }
    }

    private func locked(_ body: () -> Void) {
        pthread_mutex_lock(&mutex)
        body()
        pthread_cond_signal(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// The next job to run, waiting until one is ready or due; nil once stopped.
    private func next() -> UnownedJob? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !stopped {
            let now = ContinuousClock.now
            if let due = timers.firstIndex(where: { $0.deadline <= now }) { ready.append(timers.remove(at: due).job) }
            if !ready.isEmpty { return ready.removeFirst() }
            if let earliest = timers.map(\.deadline).min() {
                let (seconds, attoseconds) = now.duration(to: earliest).components
                var when = timespec()
                clock_gettime(CLOCK_MONOTONIC, &when)
                let nanoseconds = Int(when.tv_nsec) + Int(attoseconds / 1_000_000_000)
                when.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
                when.tv_nsec = nanoseconds % 1_000_000_000
                pthread_cond_timedwait(&condition, &mutex, &when)
            } else {
                pthread_cond_wait(&condition, &mutex)
            }
        }
        return nil
    }

    func run() throws {
        while let job = next() {
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    func stop() { locked { stopped = true } }
}

struct LoopExecutorFactory: ExecutorFactory {
    static let loop = LoopExecutor()
    static var mainExecutor: any MainExecutor { loop }
    static var defaultExecutor: any TaskExecutor { loop }
}

@main struct LoopExecutorIdle {
    static func main() {
        _createExecutors(factory: LoopExecutorFactory.self)
        Task {
            for _ in 0..<4 { Task { _ = getpid() } }
            try? await Task.sleep(for: .milliseconds(500))
            print("idle \(getpid())")
            fflush(stdout)
            try? await Task.sleep(for: .seconds(Int(CommandLine.arguments.dropFirst().first ?? "12") ?? 12))
            LoopExecutorFactory.loop.stop()
        }
        try? LoopExecutorFactory.loop.run()
    }
}
