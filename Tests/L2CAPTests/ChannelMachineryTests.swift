import Testing

@testable import L2CAP

#if canImport(Glibc)
import Glibc
#endif

/// The channel's readiness machinery (eager drain, back-pressured sends, ends, cancellation, close) over an AF_UNIX
/// SOCK_SEQPACKET pair: the same whole-message, non-blocking semantics as an LE CoC socket, on any kernel. What only
/// Bluetooth can show (MTUs, PSMs, refusals, link loss) is proven in the VM (l2cap-vm-scenarios).
@Suite("L2CAPChannel machinery over a SOCK_SEQPACKET pair")
struct ChannelMachineryTests {
    static let a = L2CAPAddress("00:AA:01:00:00:00", kind: .lePublic)!
    static let b = L2CAPAddress("00:AA:01:01:00:01", kind: .leRandom)!

    /// Two non-blocking SOCK_SEQPACKET descriptors connected to each other.
    static func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        let made = socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            | Int32(SOCK_CLOEXEC.rawValue), 0, &fds)
        try #require(made == 0, "socketpair: errno \(errno)")
        return (fds[0], fds[1])
    }

    static func channel(_ fd: Int32, mtu: Int = 65535) -> L2CAPChannel {
        L2CAPChannel(handle: SocketHandle(fd: fd), local: a, peer: b, psm: 0x80,
                     sendMTU: mtu, receiveMTU: mtu)
    }

    static func channels(mtu: Int = 65535) throws -> (L2CAPChannel, L2CAPChannel) {
        let (x, y) = try socketPair()
        return (channel(x, mtu: mtu), channel(y, mtu: mtu))
    }

    /// A deterministic SDU: `index` in its first two bytes, then a pattern.
    static func sdu(_ index: Int, size: Int) -> [UInt8] {
        (0..<size).map { i in
            i == 0 ? UInt8(index & 0xFF) : i == 1 ? UInt8(index >> 8 & 0xFF) : UInt8(truncatingIfNeeded: i &* 31 &+ index)
        }
    }

    @Test("channels opened and torn down from many tasks at once: every SDU arrives, and the process survives")
    func churn() async throws {
        // A daemon opens a channel while another closes (a stranger on the PSM, then the real peer). With Dispatch
        // sources on the sockets, this churn crashed libdispatch's manager thread in the VM (SIGSEGV in
        // _dispatch_event_loop_drain); the process must simply go on.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var delivered = 0
                    for round in 0..<150 {
                        let (left, right) = try Self.channels()
                        let sdu = Self.sdu(worker &* 1000 &+ round, size: 1 + round % 300)
                        try await left.send(sdu)
                        if try await right.receive() == sdu { delivered += 1 }
                        if round % 2 == 0 { left.close(); right.close() } else { right.close(); left.close() }
                    }
                    return delivered
                }
            }
            var delivered = 0
            for try await count in group { delivered += count }
            #expect(delivered == 8 * 150)
        }
    }

    @Test("SDUs cross both ways whole and in order, empty and 64 KiB ones too")
    func integrity() async throws {
        let (left, right) = try Self.channels()
        defer { left.close(); right.close() }
        let sizes = [0, 1, 23, 247, 1000, 4096, 65535] + (0..<200).map { 1 + ($0 * 977) % 5000 }
        async let sentRight: Void = {
            for (index, size) in sizes.enumerated() { try await left.send(Self.sdu(index, size: size)) }
        }()
        async let sentLeft: Void = {
            for (index, size) in sizes.reversed().enumerated() { try await right.send(Self.sdu(index, size: size)) }
        }()
        for (index, size) in sizes.enumerated() {
            let got = try await right.receive()
            #expect(got == Self.sdu(index, size: size), "SDU \(index) of \(size) bytes differs")
        }
        for (index, size) in sizes.reversed().enumerated() {
            let got = try await left.receive()
            #expect(got == Self.sdu(index, size: size), "SDU \(index) of \(size) bytes differs (other way)")
        }
        try await sentRight
        try await sentLeft
    }

    @Test("a reader that never calls receive() does not stall the sender: the socket is drained eagerly")
    func eagerDrain() async throws {
        let (x, y) = try Self.socketPair()
        // A small receive buffer: without the drain the sender would block for good after a few SDUs.
        var small: Int32 = 4096
        setsockopt(y, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let sender = Self.channel(x)
        let reader = Self.channel(y)
        defer { sender.close(); reader.close() }
        for index in 0..<500 { try await sender.send(Self.sdu(index, size: 2000)) }
        // Every send completed while nobody received; all 500 SDUs wait in the reader's own queue, in order.
        for index in 0..<500 {
            let got = try await reader.receive()
            #expect(got == Self.sdu(index, size: 2000), "SDU \(index) lost or reordered")
            if got != Self.sdu(index, size: 2000) { break }
        }
        #expect(reader.queuedSDUs == 0)
    }

    @Test("sends wait for writability in call order; a cancelled pending send never reaches the socket")
    func backPressure() async throws {
        let (x, y) = try Self.socketPair()
        var small: Int32 = 4608
        setsockopt(x, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let sender = Self.channel(x)
        defer { sender.close(); Glibc.close(y) }
        // Fill the socket: nobody reads `y` yet.
        let accepted = Counter()
        let filling = Task {
            while true {
                try await sender.send(Self.sdu(await accepted.count, size: 3000))
                await accepted.increment()
            }
        }
        while sender.pendingSends == 0 { try await Task.sleep(for: .milliseconds(5)) }
        filling.cancel()
        let ended = await filling.result
        #expect(throws: L2CAPError.self) { try ended.get() }
        #expect(kind(of: ended) == .cancelled)
        #expect(sender.pendingSends == 0, "the cancelled SDU is still queued")
        let sent = await accepted.count
        // Queue three more behind a full socket, then let the peer read: they go out in call order.
        let order = Counter()
        let queued = (0..<3).map { offset in
            Task {
                try await Task.sleep(for: .milliseconds(20 * offset))
                try await sender.send(Self.sdu(1000 + offset, size: 3000))
                await order.record(offset)
            }
        }
        while sender.pendingSends < 3 { try await Task.sleep(for: .milliseconds(5)) }
        var received: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < sent + 3 {
            let count = recv(y, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count >= 0 {
                received.append(Array(buffer[0..<count]))
            } else {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        for task in queued { try await task.value }
        // The wire says the order: the kernel got the three SDUs in call order, after what filled it. (When their
        // tasks resume afterwards is up to the executor, so `order` only says that all three returned.)
        #expect(received == (0..<sent).map { Self.sdu($0, size: 3000) } + (0..<3).map { Self.sdu(1000 + $0, size: 3000) })
        #expect(await order.order.sorted() == [0, 1, 2])
    }

    @Test("after the peer closes: the SDUs it sent first, then nil, again and again; sending fails with .reset")
    func orderlyEnd() async throws {
        let (left, right) = try Self.channels()
        defer { right.close() }
        for index in 0..<5 { try await left.send(Self.sdu(index, size: 100)) }
        left.close()
        for index in 0..<5 { #expect(try await right.receive() == Self.sdu(index, size: 100)) }
        #expect(try await right.receive() == nil)
        #expect(try await right.receive() == nil)
        do {
            try await right.send([1, 2, 3])
            Issue.record("a send to a closed peer succeeded")
        } catch {
            #expect(error.kind == .reset, "\(error)")
        }
    }

    @Test("a receive waiting when the peer closes gets nil")
    func endWhileWaiting() async throws {
        let (left, right) = try Self.channels()
        defer { right.close() }
        async let got = right.receive()
        try await Task.sleep(for: .milliseconds(50))
        left.close()
        #expect(try await got == nil)
    }

    @Test("a cancelled receive throws .cancelled and takes nothing: the next SDU goes to the next receive")
    func cancelledReceive() async throws {
        let (left, right) = try Self.channels()
        defer { left.close(); right.close() }
        let waiting = Task { () async throws(L2CAPError) -> [UInt8]? in try await right.receive() }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let result = await waiting.result
        #expect(kind(of: result) == .cancelled, "the cancelled receive returned \(result)")
        try await left.send([7, 7, 7])
        #expect(try await right.receive() == [7, 7, 7])
    }

    @Test("close: waiting and later calls throw .closed; closing twice is harmless")
    func close() async throws {
        let (left, right) = try Self.channels()
        defer { left.close() }
        let waiting = Task { () async throws(L2CAPError) -> [UInt8]? in try await right.receive() }
        try await Task.sleep(for: .milliseconds(50))
        right.close()
        right.close()
        let result = await waiting.result
        #expect(kind(of: result) == .closed, "a receive pending at close returned \(result)")
        await #expect(throws: L2CAPError.self) { try await right.send([1]) }
        do { _ = try await right.receive() } catch { #expect(error.kind == .closed) }
        // The other end sees the close as the peer's orderly end.
        #expect(try await left.receive() == nil)
    }

    @Test("an SDU larger than the send MTU is refused whole, and the channel goes on")
    func tooLong() async throws {
        let (left, right) = try Self.channels(mtu: 512)
        defer { left.close(); right.close() }
        do {
            try await left.send([UInt8](repeating: 1, count: 513))
            Issue.record("a 513-byte SDU went out over a 512-byte MTU")
        } catch {
            #expect(error.kind == .messageTooLong)
            #expect(error.message.contains("513"))
        }
        try await left.send([UInt8](repeating: 2, count: 512))
        #expect(try await right.receive() == [UInt8](repeating: 2, count: 512))
    }
}

/// The kind of the L2CAPError a task ended with; nil if it succeeded or threw something else.
func kind<T>(of result: Result<T, any Error>) -> L2CAPError.Kind? {
    guard case .failure(let error) = result else { return nil }
    return (error as? L2CAPError)?.kind
}

actor Counter {
    private(set) var count = 0
    private(set) var order: [Int] = []
    func increment() { count += 1 }
    func record(_ value: Int) { order.append(value) }
}
