import HandoffShared
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// handoffd's executor (``LoopExecutor``), driven here as a task executor on a thread of the test's own: the
/// daemon installs it as the process's main and default executor, which a test process cannot do.
@Suite struct LoopExecutorTests {
    /// A running executor and the means to stop it and wait until its thread has left `run()`.
    final class Running: Sendable {
        let executor = LoopExecutor()
        private let ended = Locked(false)

        init() {
            DetachedThread.start { [executor, ended] in
                try? executor.run()
                ended.withLock { $0 = true }
            }
        }

        func stop() async throws {
            executor.stop()
            _ = try await eventually { ended.withLock { $0 } ? true : nil }
        }
    }

    @Test func jobsRunInTheOrderTheyCameOnTheLoopsThread() async throws {
        let loop = Running()
        let order = Locked<[Int]>([])
        let tasks = (0..<50).map { index in
            Task(executorPreference: loop.executor) { [executor = loop.executor] in
                order.withLock { $0.append(index) }
                return executor.isCurrent
            }
        }
        for task in tasks { #expect(await task.value, "a job ran off the loop's thread") }
        #expect(order.withLock { $0 } == Array(0..<50))
        #expect(!loop.executor.isCurrent)
        try await loop.stop()
    }

    @Test func sleepsEndInDeadlineOrderAndResumeOnTheLoop() async throws {
        let loop = Running()
        let order = Locked<[Int]>([])
        let tasks = [300, 100, 200].map { milliseconds in
            Task(executorPreference: loop.executor) { [executor = loop.executor] in
                try await Task.sleep(for: .milliseconds(milliseconds))
                order.withLock { $0.append(milliseconds) }
                return executor.isCurrent
            }
        }
        for task in tasks { #expect(try await task.value) }
        #expect(order.withLock { $0 } == [100, 200, 300])
        #expect(loop.executor.pendingTimers == 0)
        try await loop.stop()
    }

    /// A sleep for an hour that is cancelled ends at once with CancellationError; the loop goes on serving.
    @Test func aCancelledSleepEndsAtOnce() async throws {
        let loop = Running()
        let sleeper = Task(executorPreference: loop.executor) {
            try await Task.sleep(for: .seconds(3600))
        }
        // The sleep is this executor's timer (SchedulingExecutor), not the default executor's.
        _ = try await eventually { loop.executor.pendingTimers == 1 ? true : nil }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // Its timer stays until the deadline and then runs to nothing (the documented cost: one wake-up then).
        #expect(loop.executor.pendingTimers == 1)
        let after = Task(executorPreference: loop.executor) { [executor = loop.executor] in executor.isCurrent }
        #expect(await after.value)
        try await loop.stop()
    }

    /// Jobs enqueued from many threads at once while the loop sleeps and while it runs: every one runs, once.
    @Test func jobsFromOtherThreadsWakeTheLoop() async throws {
        let loop = Running()
        let count = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<200 {
                        await Task(executorPreference: loop.executor) { count.withLock { $0 += 1 } }.value
                    }
                }
            }
        }
        #expect(count.withLock { $0 } == 1600)
        try await loop.stop()
    }

    @Test func isolationChecksPassOnlyOnTheLoop() async throws {
        let loop = Running()
        let onLoop = await Task(executorPreference: loop.executor) { [executor = loop.executor] in
            executor.checkIsolated()
            return executor.isIsolatingCurrentContext()
        }.value
        #expect(onLoop == true)
        #expect(loop.executor.isIsolatingCurrentContext() == false)
        try await loop.stop()
    }
}

/// Polls `probe` until it returns a value, for up to `seconds`.
func eventually<T>(within seconds: Double = 10, _ probe: () throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if let value = try probe() { return value }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("not within \(seconds) s")
    throw CancellationError()
}
