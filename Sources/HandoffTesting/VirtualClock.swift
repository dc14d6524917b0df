import Foundation
import HandoffKit
import HandoffShared

/// A `HandoffClock` whose time moves only when a test calls `advance(by:)`, as NIOEmbedded's `advanceTime(by:)`:
/// a stall window, an expiry or a rotation interval passes at once, and never by itself. Give it to the engines
/// through `HandoffConfiguration.clock` and to the radio through `InMemoryEther(clock:)`.
public final class VirtualClock: HandoffClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: HandoffInstant
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var now = HandoffInstant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Locked(State())
    /// The wall-clock date at instant zero.
    public let origin: Date

    /// A clock at instant zero, whose wall clock reads `origin` there.
    public init(origin: Date = Date()) {
        self.origin = origin
    }

    /// Instant zero plus the time advanced so far.
    public var now: HandoffInstant { state.value.now }

    /// `origin` plus the time advanced so far.
    public var date: Date {
        origin.addingTimeInterval(state.value.now.offset.timeInterval)
    }

    /// Tasks waiting in `sleep`.
    public var sleeperCount: Int { state.value.sleepers.count }

    /// Every deadline a task waits for, earliest first (for a test's failure message).
    public var deadlines: [HandoffInstant] { state.value.sleepers.map(\.deadline).sorted() }

    /// The earliest deadline a task waits for, if any.
    public var nextDeadline: HandoffInstant? { state.value.sleepers.map(\.deadline).min() }

    /// Waits until an `advance(by:)` reaches `deadline` (returns at once if time already has).
    public func sleep(until deadline: HandoffInstant) async throws(CancellationError) {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let woke = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let due = state.withLock { state in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if due { continuation.resume(returning: true) }
                // A cancellation before the append found nothing to remove: see it here.
                if !due, Task.isCancelled { remove(id)?.resume(returning: false) }
            }
        } onCancel: {
            remove(id)?.resume(returning: false)
        }
        if !woke || Task.isCancelled { throw CancellationError() }
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline has now passed, earliest deadline
    /// first (ties in the order they went to sleep). A woken task runs once the caller lets it; a task that sleeps
    /// again sleeps from the new time.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now + duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
                .sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume(returning: true) }
    }

    private func remove(_ id: UInt64) -> CheckedContinuation<Bool, Never>? {
        state.withLock { state in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index).continuation
        }
    }
}
