import HandoffKit
import HandoffShared

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// HandoffKit's fast lane over TCP (Docs/protocol.md §9): a listener on a port the kernel picks, on every
/// address the machine already has, and connections that carry whole frames. It opens nothing but sockets: no
/// interface is configured, no network joined, nothing multicast or broadcast.
///
/// Each socket is blocking and has its own reader thread, which keeps at most `queueLimit` frames waiting for the
/// engine; past that it stops reading, the kernel's buffers fill and TCP holds the sender back. Each socket also
/// has one writer thread for its whole life, fed by a queue of at most `sendLimit` bytes: `send` only queues (no
/// task of the cooperative pool ever blocks in send(2)), so the engine seals the next frame while the last one
/// goes out, and the writer hands all queued frames to the kernel in one sendmsg(2).
package struct TCPLane: LaneNetwork {
    /// Which addresses may be offered and accepted on (`.production`: a connection that arrives on a loopback
    /// address is closed at once).
    package let policy: LanePolicy

    /// The lane under `policy`.
    package init(policy: LanePolicy = .production) {
        self.policy = policy
    }

    package func listen() async throws(LaneError) -> any LaneListener {
        try listenNow()
    }

    /// `listen()` on the calling thread (a tool that puts a thread in a network namespace calls it there: the
    /// socket and the addresses listed are that namespace's).
    package func listenNow() throws(LaneError) -> any LaneListener {
        try TCPListener(policy: policy)
    }

    package func connect(to endpoints: [LaneEndpoint], timeout: Duration) async throws(LaneError) -> any LaneConnection {
        // The connection is made on a thread of its own and handed over through a lock as well as the continuation:
        // ThreadSanitizer does not see the continuation's ordering (the concurrency runtime is not instrumented), and
        // reported the new connection's fields, written on that thread and read by the task, as a race.
        let handedOver = Locked<Result<any LaneConnection, LaneError>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DetachedThread.start {
                handedOver.value = Self.connectBlocking(endpoints, timeout: timeout)
                continuation.resume()
            }
        }
        guard let result = handedOver.value else { throw LaneError("the connecting thread gave no result") }
        return try result.get()
    }

    /// The machine's addresses now, on interfaces that are up (loopback included; the policy decides).
    package static func interfaceAddresses() -> [[UInt8]] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [[UInt8]] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_RUNNING) != 0,
                  let address = entry.pointee.ifa_addr, let bytes = Self.bytes(of: address) else { continue }
            if !addresses.contains(bytes) { addresses.append(bytes) }
        }
        return addresses
    }

    static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// `connect(to:timeout:)` on the calling thread, blocking.
    package static func connectBlocking(_ endpoints: [LaneEndpoint], timeout: Duration) -> Result<any LaneConnection, LaneError> {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var failures: [String] = []
        for endpoint in endpoints {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else {
                failures.append("\(endpoint): no time left")
                continue
            }
            switch connectOne(endpoint, timeout: left) {
            case .success(let fd): return .success(TCPConnection(fd: fd))
            case .failure(let message): failures.append("\(endpoint): \(message.message)")
            }
        }
        return .failure(LaneError("cannot connect (" + failures.joined(separator: "; ") + ")"))
    }

    private static func connectOne(_ endpoint: LaneEndpoint, timeout: Duration) -> Result<Int32, LaneError> {
        let family = endpoint.isIPv4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(LaneError(SocketText.errno("socket"))) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let started = SocketAddress.withSockaddr(endpoint) { Glibc.connect(fd, $0, $1) }
        if started != 0 && errno != EINPROGRESS {
            let text = SocketText.errno("connect")
            _ = close(fd)
            return .failure(LaneError(text))
        }
        var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: max(1, Int(timeout.timeInterval * 1000)))
        let ready = poll(&poller, 1, milliseconds)
        guard ready > 0 else {
            _ = close(fd)
            return .failure(LaneError(ready == 0 ? "timed out" : SocketText.errno("poll")))
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard error == 0 else {
            _ = close(fd)
            return .failure(LaneError(String(cString: strerror(error))))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(fd)
    }
}

/// sockaddr_in / sockaddr_in6 for an endpoint, and back.
enum SocketAddress {
    static func withSockaddr<R>(_ endpoint: LaneEndpoint, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        if endpoint.isIPv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            withUnsafeMutableBytes(of: &address.sin_addr) { $0.copyBytes(from: endpoint.address) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = endpoint.port.bigEndian
        withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: endpoint.address) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }

    /// The endpoint of `fd`'s local (`peer` false) or remote end.
    static func endpoint(of fd: Int32, peer: Bool) -> LaneEndpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard result == 0 else { return nil }
        return withUnsafePointer(to: &storage) { pointer -> LaneEndpoint? in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> LaneEndpoint? in
                guard var bytes = TCPLane.bytes(of: address) else { return nil }
                let port: UInt16
                if Int32(address.pointee.sa_family) == AF_INET {
                    port = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                } else {
                    port = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                    // An IPv4 peer of a dual-stack socket: ::ffff:a.b.c.d is a.b.c.d.
                    if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                        bytes = Array(bytes[12...])
                    }
                }
                return LaneEndpoint(address: bytes, port: port)
            }
        }
    }
}

enum SocketText {
    static func errno(_ call: String) -> String {
        "\(call): \(String(cString: strerror(Glibc.errno)))"
    }
}

/// A listening socket on every address (IPv6 dual-stack where the kernel has it, else IPv4), port from the kernel.
final class TCPListener: LaneListener {
    let endpoints: [LaneEndpoint]
    let connections: AsyncStream<any LaneConnection>
    private let fd: Int32
    private let closed = Locked(false)

    init(policy: LanePolicy) throws(LaneError) {
        var fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var isIPv6 = fd >= 0
        if fd >= 0 {
            var off: Int32 = 0
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            let any = LaneEndpoint(address: [UInt8](repeating: 0, count: 16), port: 0)!
            if SocketAddress.withSockaddr(any, { bind(fd, $0, $1) }) != 0 {
                _ = Glibc.close(fd)
                fd = -1
            }
        }
        if fd < 0 {
            isIPv6 = false
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw LaneError(SocketText.errno("socket")) }
            let any = LaneEndpoint(address: [0, 0, 0, 0], port: 0)!
            guard SocketAddress.withSockaddr(any, { bind(fd, $0, $1) }) == 0 else {
                let text = SocketText.errno("bind")
                _ = Glibc.close(fd)
                throw LaneError(text)
            }
        }
        guard Glibc.listen(fd, 8) == 0, let local = SocketAddress.endpoint(of: fd, peer: false) else {
            let text = SocketText.errno("listen")
            _ = Glibc.close(fd)
            throw LaneError(text)
        }
        self.fd = fd
        endpoints = TCPLane.interfaceAddresses()
            .filter { isIPv6 || $0.count == 4 }
            .compactMap { LaneEndpoint(address: $0, port: local.port) }
        let (stream, continuation) = AsyncStream<any LaneConnection>.makeStream()
        connections = stream
        let closed = self.closed
        DetachedThread.start { [fd] in
            while true {
                let child = accept(fd, nil, nil)
                if child < 0 {
                    if Glibc.errno == EINTR || Glibc.errno == ECONNABORTED, !closed.value { continue }
                    break
                }
                // The production rule: nothing is taken on a loopback address (a local process must not reach
                // the engine through the lane; the peer is never on this machine).
                guard let mine = SocketAddress.endpoint(of: child, peer: false),
                      policy.allowsLoopback || !mine.isLoopback, !closed.value else {
                    _ = Glibc.close(child)
                    continue
                }
                continuation.yield(TCPConnection(fd: child))
            }
            continuation.finish()
            _ = Glibc.close(fd)   // only this thread closes it, after its last accept
        }
    }

    func close() {
        let first = closed.withLock { closed in defer { closed = true }; return !closed }
        if first { _ = shutdown(fd, Int32(SHUT_RDWR)) }   // wakes accept(2) with EINVAL
    }
}

/// One TCP connection: `length(4, big-endian) ‖ frame`, in both directions.
final class TCPConnection: LaneConnection {
    let remote: String
    let frames: AsyncStream<[UInt8]>
    private let fd: Int32
    private let queue: FrameQueue
    private let outgoing: SendQueue
    private let closed = Locked(false)

    /// Frames read ahead of the engine at most (16 of the engine's 256 KiB frames: 4 MiB).
    static let queueLimit = 16
    /// Bytes handed to `send` and not yet written to the socket, at most (past that `send` waits): enough to
    /// keep the writer thread busy while the engine seals the next frames, little enough that a lane that dies
    /// drops little that was never on the network (the kernel's send buffer holds the rest).
    static let sendLimit = 1 << 19
    /// Bytes written to the socket and not yet sent that the kernel keeps at most (TCP_NOTSENT_LOWAT).
    static let unsentLimit = 1 << 19

    init(fd: Int32) {
        self.fd = fd
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        // At most `unsentLimit` bytes wait unsent in the kernel (TCP still grows its window as the path allows):
        // a lane whose network goes away leaves that much, not the send buffer's megabytes, to send again.
        var unsent = Int32(Self.unsentLimit)
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &unsent, socklen_t(MemoryLayout<Int32>.size))
        remote = SocketAddress.endpoint(of: fd, peer: true)?.description ?? "?"
        let queue = FrameQueue(limit: Self.queueLimit)
        self.queue = queue
        frames = AsyncStream(unfolding: { await queue.pop() })
        DetachedThread.start { [fd] in
            var header = [UInt8](repeating: 0, count: 4)
            while Self.readExactly(fd, into: &header) {
                let length = header.reduce(0) { $0 << 8 | Int($1) }
                guard length <= LaneFraming.maximumFrameLength, let frame = Self.read(length, from: fd),
                      queue.push(frame) else { break }
            }
            queue.finish()
        }
        let outgoing = SendQueue(limit: Self.sendLimit)
        self.outgoing = outgoing
        DetachedThread.start { [fd] in outgoing.drain(into: fd) }
    }

    deinit {
        // The writer thread may be in writev(2) on the descriptor: it is closed only once that thread is done.
        _ = shutdown(fd, Int32(SHUT_RDWR))
        outgoing.finish()
        outgoing.waitUntilDrained()
        _ = Glibc.close(fd)
    }

    /// `count` bytes read from `fd` straight into a new array (not zeroed first); nil when the stream ends first.
    private static func read(_ count: Int, from fd: Int32) -> [UInt8]? {
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: max(count, 1)) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < count {
                let got = recv(fd, base + done, count - done, 0)
                if got < 0 && Glibc.errno == EINTR { continue }
                guard got > 0 else { break }
                done += got
            }
            initialized = done
            complete = done == count
        }
        return complete ? bytes : nil
    }

    private static func readExactly(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var done = 0
        let count = buffer.count
        while done < count {
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + done, count - done, 0) }
            if got < 0 && Glibc.errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    /// Hands `frame` to the connection's writer thread and returns at once while fewer than `sendLimit` bytes
    /// wait there (the engine seals the next frame while this one goes out), else once there is room. Throws
    /// once the connection failed or closed; frames are written whole and in the order they were sent.
    func send(_ frame: [UInt8]) async throws(LaneError) {
        guard frame.count <= LaneFraming.maximumFrameLength else { throw LaneError("frame too long") }
        while true {
            switch outgoing.offer(frame) {
            case .queued: return
            case .failed(let message): throw LaneError(message)
            case .full: await outgoing.room(for: frame.count)
            }
        }
    }

    func close() {
        let first = closed.withLock { closed in defer { closed = true }; return !closed }
        guard first else { return }
        _ = shutdown(fd, Int32(SHUT_RDWR))   // the reader sees the end; the descriptor closes with the object
        queue.finish()
        outgoing.finish()
    }
}

/// The frames handed to a connection and not yet written, at most `limit` bytes, and the one thread that
/// writes them (`drain`), several frames to a writev(2). `@unchecked Sendable`: every field is touched with the
/// mutex held.
final class SendQueue: @unchecked Sendable {
    enum Offer { case queued, full, failed(String) }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var frames: [[UInt8]] = []
    private var bytes = 0
    private var failure: String?
    private var drained = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let limit: Int

    /// Frames written with one writev(2) at most (each takes two iovecs: its length and its bytes).
    static let batch = 32

    init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(work, nil)
    }

    deinit {
        pthread_cond_destroy(work)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        work.deallocate()
    }

    /// Queues `frame` unless the queue is full (an empty queue takes any frame) or the connection is done.
    func offer(_ frame: [UInt8]) -> Offer {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let failure { return .failed(failure) }
        guard bytes == 0 || bytes + frame.count <= limit else { return .full }
        frames.append(frame)
        bytes += frame.count
        pthread_cond_signal(work)
        return .queued
    }

    /// Returns once the queue has room for `count` bytes, or the connection is done.
    func room(for count: Int) async {
        await withCheckedContinuation { continuation in
            pthread_mutex_lock(mutex)
            if failure != nil || bytes == 0 || bytes + count <= limit {
                pthread_mutex_unlock(mutex)
                continuation.resume()
            } else {
                waiters.append(continuation)
                pthread_mutex_unlock(mutex)
            }
        }
    }

    /// Ends the queue: what waits is dropped, `offer` fails, the writer thread returns.
    func finish() {
        fail("connection closed")
    }

    /// The writer thread's loop: takes what is queued, writes it, until the queue is finished or a write fails.
    func drain(into fd: Int32) {
        while true {
            pthread_mutex_lock(mutex)
            while frames.isEmpty && failure == nil { pthread_cond_wait(work, mutex) }
            guard failure == nil else {
                drained = true
                pthread_cond_broadcast(work)
                pthread_mutex_unlock(mutex)
                return
            }
            let taken = Array(frames.prefix(Self.batch))
            pthread_mutex_unlock(mutex)
            let failed = Self.write(taken, to: fd)
            pthread_mutex_lock(mutex)
            if failure == nil {   // else `fail` emptied the queue already
                frames.removeFirst(taken.count)
                bytes -= taken.reduce(0) { $0 + $1.count }
            }
            let woken = waiters   // each checks again whether its frame fits now
            waiters = []
            pthread_mutex_unlock(mutex)
            for waiter in woken { waiter.resume() }
            if let failed { fail(failed) }
        }
    }

    /// Waits until the writer thread returned (after `finish`).
    func waitUntilDrained() {
        pthread_mutex_lock(mutex)
        while !drained { pthread_cond_wait(work, mutex) }
        pthread_mutex_unlock(mutex)
    }

    private func fail(_ message: String) {
        pthread_mutex_lock(mutex)
        if failure == nil { failure = message }
        frames = []
        bytes = 0
        let woken = waiters
        waiters = []
        pthread_cond_broadcast(work)
        pthread_mutex_unlock(mutex)
        for waiter in woken { waiter.resume() }
    }

    /// Writes each frame as `length(4) ‖ frame`, with as few sendmsg(2) calls as the kernel allows (a writev(2)
    /// that takes MSG_NOSIGNAL: a peer gone raises no SIGPIPE); the errno text when one fails.
    private static func write(_ frames: [[UInt8]], to fd: Int32) -> String? {
        var headers = [UInt8](repeating: 0, count: frames.count * 4)
        for (index, frame) in frames.enumerated() {
            let length = UInt32(frame.count)
            headers[index * 4] = UInt8(length >> 24)
            headers[index * 4 + 1] = UInt8(length >> 16 & 0xFF)
            headers[index * 4 + 2] = UInt8(length >> 8 & 0xFF)
            headers[index * 4 + 3] = UInt8(length & 0xFF)
        }
        return headers.withUnsafeBytes { headerBytes in
            var parts: [UnsafeRawBufferPointer] = []
            parts.reserveCapacity(frames.count * 2)
            return Self.withFrameBuffers(frames[...]) { buffers in
                for (index, buffer) in buffers.enumerated() {
                    parts.append(UnsafeRawBufferPointer(rebasing: headerBytes[(index * 4)..<(index * 4 + 4)]))
                    if buffer.count > 0 { parts.append(buffer) }
                }
                return Self.writeAll(parts, to: fd)
            }
        }
    }

    /// Runs `body` with the bytes of every frame pinned.
    private static func withFrameBuffers<R>(_ frames: ArraySlice<[UInt8]>, _ pinned: [UnsafeRawBufferPointer] = [],
                                            _ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        guard let first = frames.first else { return body(pinned) }
        return first.withUnsafeBytes { bytes in
            withFrameBuffers(frames.dropFirst(), pinned + [bytes], body)
        }
    }

    private static func writeAll(_ parts: [UnsafeRawBufferPointer], to fd: Int32) -> String? {
        var vectors = parts.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
        var first = 0
        while first < vectors.count {
            let written = vectors[first...].withUnsafeMutableBufferPointer { pointer in
                var message = msghdr()
                message.msg_iov = pointer.baseAddress
                message.msg_iovlen = min(pointer.count, 1024)   // IOV_MAX on Linux
                return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && Glibc.errno == EINTR { continue }
            guard written > 0 else { return written == 0 ? "send: connection closed" : SocketText.errno("send") }
            var left = written
            while first < vectors.count && left >= vectors[first].iov_len {
                left -= vectors[first].iov_len
                first += 1
            }
            if left > 0 {
                vectors[first].iov_base = vectors[first].iov_base.map { $0 + left }
                vectors[first].iov_len -= left
            }
        }
        return nil
    }
}

/// The frames a connection's reader thread has read and the engine has not taken yet, at most `limit`: past that
/// the reader thread waits (and TCP's window holds the sender back). `@unchecked Sendable`: every field is
/// touched with the mutex held.
final class FrameQueue: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var frames: [[UInt8]] = []
    private var head = 0
    private var finished = false
    private var waiter: CheckedContinuation<[UInt8]?, Never>?
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(room, nil)
    }

    deinit {
        pthread_cond_destroy(room)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        room.deallocate()
    }

    /// Adds a frame, waiting while the queue is full; false once finished.
    func push(_ frame: [UInt8]) -> Bool {
        pthread_mutex_lock(mutex)
        while frames.count - head >= limit && !finished { pthread_cond_wait(room, mutex) }
        guard !finished else {
            pthread_mutex_unlock(mutex)
            return false
        }
        if let waiter {
            self.waiter = nil
            pthread_mutex_unlock(mutex)
            waiter.resume(returning: frame)
            return true
        }
        frames.append(frame)
        pthread_mutex_unlock(mutex)
        return true
    }

    /// No more frames: a waiting pop gets nil, queued frames are still handed out.
    func finish() {
        pthread_mutex_lock(mutex)
        finished = true
        let waiter = self.waiter
        self.waiter = nil
        pthread_cond_broadcast(room)
        pthread_mutex_unlock(mutex)
        waiter?.resume(returning: nil)
    }

    /// The next frame, or nil after the last.
    func pop() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            pthread_mutex_lock(mutex)
            if head < frames.count {
                let frame = frames[head]
                frames[head] = []   // a frame handed out is not kept alive by the queue (it was: 64 MiB of them)
                head += 1
                if head > 256 {
                    frames.removeFirst(head)
                    head = 0
                }
                pthread_cond_signal(room)
                pthread_mutex_unlock(mutex)
                continuation.resume(returning: frame)
            } else if finished {
                pthread_mutex_unlock(mutex)
                continuation.resume(returning: nil)
            } else {
                waiter = continuation
                pthread_mutex_unlock(mutex)
            }
        }
    }
}
