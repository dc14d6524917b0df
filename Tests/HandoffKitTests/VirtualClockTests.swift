import Foundation
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// The virtual clock: time moves only when advanced, sleepers wake in deadline order, cancellation ends a sleep.
struct VirtualClockTests {
    /// Waits (yielding, never sleeping) until `clock` has `count` sleepers.
    private func sleepers(_ count: Int, on clock: VirtualClock) async {
        while clock.sleeperCount < count { await Task.yield() }
    }

    enum Start { case atOnce, cancelled }

    /// A task that sleeps `duration` on `clock` (`.cancelled`: only once it is cancelled) and returns whether the
    /// sleep threw `CancellationError`.
    private func sleeping(on clock: any HandoffClock, for duration: Duration, once start: Start = .atOnce)
        -> Task<Bool, Never> {
        Task {
            if start == .cancelled { while !Task.isCancelled { await Task.yield() } }
            do throws(CancellationError) {
                try await clock.sleep(for: duration)
                return false
            } catch {
                return true
            }
        }
    }

    @Test func timeMovesOnlyWhenAdvancedAndTheWallClockFollows() {
        let origin = Date(timeIntervalSince1970: 1_000_000)
        let clock = VirtualClock(origin: origin)
        #expect(clock.now == HandoffInstant(offset: .zero))
        #expect(clock.date == origin)
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now == HandoffInstant(offset: .milliseconds(1500)))
        #expect(clock.date == origin.addingTimeInterval(1.5))
    }

    @Test func anAdvanceWakesExactlyTheSleepersWhoseDeadlinePassed() async throws {
        let clock = VirtualClock()
        let woken = Locked<[Int]>([])
        let tasks = [3, 1, 2].map { seconds in
            (seconds, Task {
                try await clock.sleep(for: .seconds(seconds))
                woken.withLock { $0.append(seconds) }
            })
        }
        await sleepers(3, on: clock)
        #expect(clock.nextDeadline == HandoffInstant(offset: .seconds(1)))
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 3, "a sleeper woke before its deadline")
        clock.advance(by: .milliseconds(1001))   // now 2 s
        #expect(clock.sleeperCount == 1)
        #expect(clock.nextDeadline == HandoffInstant(offset: .seconds(3)))
        for (seconds, task) in tasks where seconds < 3 { try await task.value }
        #expect(Set(woken.value) == [1, 2])
        clock.advance(by: .seconds(1))
        for (_, task) in tasks { try await task.value }
        #expect(woken.value.sorted() == [1, 2, 3])
        #expect(clock.nextDeadline == nil)
    }

    @Test func aPassedDeadlineReturnsAtOnce() async throws {
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: HandoffInstant(offset: .seconds(4)))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellationEndsASleepWithCancellationError() async {
        let clock = VirtualClock()
        let task = sleeping(on: clock, for: .seconds(3600))
        await sleepers(1, on: clock)
        task.cancel()
        #expect(await task.value, "the sleep did not throw CancellationError")
        #expect(clock.sleeperCount == 0, "a cancelled sleeper was left behind")
        #expect(clock.now == HandoffInstant(offset: .zero))
    }

    @Test func aTaskCancelledBeforeItSleepsDoesNotWait() async {
        let clock = VirtualClock()
        let task = sleeping(on: clock, for: .seconds(1), once: .cancelled)
        task.cancel()
        #expect(await task.value)
        #expect(clock.sleeperCount == 0)
    }

    @Test func theRealClockSleepsAndHonoursCancellation() async throws {
        let clock = RealClock()
        let start = clock.now
        try await clock.sleep(for: .milliseconds(20))
        #expect(start.duration(to: clock.now) >= .milliseconds(20))
        let task = sleeping(on: clock, for: .seconds(3600))
        task.cancel()
        #expect(await task.value)
    }
}
