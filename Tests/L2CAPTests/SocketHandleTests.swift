import Synchronization
import Testing

@testable import L2CAP

#if canImport(Glibc)
import Glibc
#endif

/// `SocketHandle`'s poll thread on plain descriptors (a pipe, an AF_UNIX pair), on any kernel: its deadline, and a
/// handler that closes its own handle.
@Suite("SocketHandle's poll thread")
struct SocketHandleTests {
    /// When a handler or deadline on the poll thread ran, for the test to read.
    final class Runs: Sendable {
        private let instants = Mutex<[ContinuousClock.Instant]>([])
        var count: Int { instants.withLock { $0.count } }
        var first: ContinuousClock.Instant? { instants.withLock { $0.first } }
        func record() { instants.withLock { $0.append(.now) } }
    }

    /// Whether `done` came to hold within `limit`, checked every 5 ms.
    static func eventually(within limit: Duration = .seconds(10), _ done: () -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + limit
        while !done() {
            guard ContinuousClock.now < end else { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// A pipe: its read end never polls writable, and does not hang up while the write end is open.
    static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0, "pipe: errno \(errno)")
        return (ends[0], ends[1])
    }

    @Test("poll(2)'s timeout: none without a deadline, else the milliseconds left rounded up, 0 once passed")
    func pollTimeout() {
        let now = ContinuousClock.now
        #expect(SocketPoller.pollTimeout(until: nil, now: now) == -1)
        #expect(SocketPoller.pollTimeout(until: now, now: now) == 0)
        #expect(SocketPoller.pollTimeout(until: now - .milliseconds(5), now: now) == 0)
        #expect(SocketPoller.pollTimeout(until: now + .nanoseconds(1), now: now) == 1)
        #expect(SocketPoller.pollTimeout(until: now + .milliseconds(5), now: now) == 5)
        #expect(SocketPoller.pollTimeout(until: now + .microseconds(5001), now: now) == 6)
        #expect(SocketPoller.pollTimeout(until: now + .seconds(3), now: now) == 3000)
        #expect(SocketPoller.pollTimeout(until: now + .seconds(86400 * 365), now: now) == Int32.max)
    }

    @Test("a deadline fires once, not before its time, on a socket that never becomes writable")
    func deadlineFires() async throws {
        let (readEnd, writeEnd) = try Self.pipeEnds()
        defer { close(writeEnd) }
        let handle = SocketHandle(fd: readEnd)
        defer { handle.close() }
        let writable = Runs()
        let fired = Runs()
        handle.onWritable { writable.record() }
        handle.setWriting(true)
        let start = ContinuousClock.now
        handle.setDeadline(after: .milliseconds(50)) { fired.record() }
        #expect(try await Self.eventually { fired.count > 0 }, "the deadline never fired")
        let firstFired = try #require(fired.first)
        #expect(firstFired - start >= .milliseconds(50), "fired \(firstFired - start) after it was set")
        #expect(try await !Self.eventually(within: .milliseconds(300)) { fired.count > 1 }, "it fired again")
        #expect(writable.count == 0)
    }

    @Test("a cancelled deadline, a replaced one, and one on a closed handle never fire")
    func deadlineCancelled() async throws {
        // Three handles: a later deadline on the same handle would replace the cancelled one and hide a cancel
        // that did nothing.
        let ends = try (0..<3).map { _ in try Self.pipeEnds() }
        defer { for end in ends { close(end.write) } }
        let handles = ends.map { SocketHandle(fd: $0.read) }
        defer { for handle in handles { handle.close() } }
        let cancelled = Runs()
        handles[0].setDeadline(after: .milliseconds(20)) { cancelled.record() }
        handles[0].cancelDeadline()
        let replaced = Runs()
        let replacing = Runs()
        handles[1].setDeadline(after: .milliseconds(20)) { replaced.record() }
        handles[1].setDeadline(after: .milliseconds(40)) { replacing.record() }
        let afterClose = Runs()
        handles[2].setDeadline(after: .milliseconds(20)) { afterClose.record() }
        handles[2].close()
        #expect(try await Self.eventually { replacing.count > 0 }, "the replacing deadline never fired")
        #expect(try await !Self.eventually(within: .milliseconds(500)) {
            cancelled.count + replaced.count + afterClose.count > 0
        }, "cancelled \(cancelled.count), replaced \(replaced.count), after close \(afterClose.count)")
    }

    @Test("a handler may close its own handle: it runs once, then the poll thread closes the descriptor")
    func handlerClosesItsHandle() async throws {
        let (mine, peer) = try ChannelMachineryTests.socketPair()
        defer { close(peer) }
        let handle = SocketHandle(fd: mine)
        let runs = Runs()
        handle.onReadable {
            runs.record()
            handle.setWriting(false)
            handle.close()
        }
        handle.setReading(true)
        // Never read: the socket stays readable, so a handle still open would run the handler again.
        var byte: UInt8 = 1
        #expect(send(peer, &byte, 1, Int32(MSG_DONTWAIT)) == 1)
        let hungUp = try await Self.eventually {
            var descriptor = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP) != 0
        }
        #expect(hungUp, "the handle's descriptor was not closed")
        #expect(try await !Self.eventually(within: .milliseconds(300)) { runs.count > 1 }, "ran \(runs.count) times")
        #expect(runs.count == 1)
    }
}
