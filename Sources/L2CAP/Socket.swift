import CBluetooth
import HandoffShared

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The system calls of an LE CoC socket, each returning the `L2CAPError` its errno maps to. Internal: the public
/// types are `L2CAPListener` and `L2CAPChannel`.
enum Socket {
    /// A non-blocking, close-on-exec `SOCK_SEQPACKET` / `BTPROTO_L2CAP` socket.
    static func open() throws(L2CAPError) -> Int32 {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_L2CAP)
        guard fd >= 0 else {
            let code = errno
            if L2CAPError.kind(errno: code) == .unsupported {
                throw L2CAPError(.unsupported, errno: code, message: "this kernel offers no Bluetooth L2CAP sockets "
                    + "(socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP): \(L2CAPError.describe(errno: code))); "
                    + "LE credit-based channels need the kernel's bluetooth module")
            }
            throw L2CAPError(errno: code, "socket(AF_BLUETOOTH, SOCK_SEQPACKET, BTPROTO_L2CAP)")
        }
        return fd
    }

    /// accept(2), the new descriptor made non-blocking and close-on-exec (Glibc's accept4 needs _GNU_SOURCE,
    /// which a Swift module cannot set). -1 with errno set on failure.
    static func accept(_ fd: Int32) -> Int32 {
        let child = Glibc.accept(fd, nil, nil)
        guard child >= 0 else { return -1 }
        guard fcntl(child, F_SETFD, FD_CLOEXEC) == 0,
              fcntl(child, F_SETFL, fcntl(child, F_GETFL) | O_NONBLOCK) == 0
        else {
            let code = errno
            _ = Glibc.close(child)
            errno = code
            return -1
        }
        enlargeReceiveBuffer(child)
        enlargeSendBuffer(child)
        return child
    }

    /// Binds `fd` to an adapter's address; `psm` 0 lets the kernel pick a free dynamic LE PSM (0x80-0xFF).
    static func bind(_ fd: Int32, to local: L2CAPAddress, psm: UInt16) throws(L2CAPError) {
        var address = socketAddress(of: local, psm: psm)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            if code == EADDRINUSE || (code == EINVAL && psm == 0) {
                throw L2CAPError(.failed, errno: code, message: "bind to \(local) psm \(hex(psm)): "
                    + "\(L2CAPError.describe(errno: code))"
                    + (psm == 0 ? " (no free dynamic LE PSM on this adapter)" : " (the PSM is taken on this adapter)"))
            }
            throw L2CAPError(errno: code, "bind to \(local) psm \(hex(psm))")
        }
    }

    /// `BT_SECURITY` low (no pairing or encryption asked for: payloads are sealed end to end) and `BT_RCVMTU`.
    /// Both must be set before listen/connect; BT_RCVMTU needs an LE bind first.
    static func configure(_ fd: Int32, receiveMTU: Int, what: String) throws(L2CAPError) {
        var security = cbt_security(UInt8(BT_SECURITY_LOW))
        guard setsockopt(fd, SOL_BLUETOOTH, BT_SECURITY, &security, socklen_t(MemoryLayout<bt_security>.size)) == 0
        else { throw L2CAPError(errno: errno, "\(what): setsockopt BT_SECURITY low") }
        var mtu = UInt16(receiveMTU)
        guard setsockopt(fd, SOL_BLUETOOTH, BT_RCVMTU, &mtu, socklen_t(MemoryLayout<UInt16>.size)) == 0
        else { throw L2CAPError(errno: errno, "\(what): setsockopt BT_RCVMTU \(receiveMTU)") }
        enlargeReceiveBuffer(fd)
        enlargeSendBuffer(fd)
    }

    /// The kernel segments a whole SDU into K-frames before sending any, each charged to the send buffer (about
    /// 800 bytes of it per K-frame of ~190 bytes): with the default buffer a 64 KiB SDU never fits, and send(2)
    /// says EAGAIN for ever. Best effort: the kernel caps it at twice wmem_max.
    static func enlargeSendBuffer(_ fd: Int32) {
        var buffer: Int32 = 1 << 23
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Whether nothing sent is still charged to the socket's send buffer (TIOCOUTQ, which Bluetooth sockets
    /// answer with the free space, equals SO_SNDBUF).
    static func sendBufferIsEmpty(_ fd: Int32) -> Bool {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        var free: Int32 = 0
        guard getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0, ioctl(fd, UInt(TIOCOUTQ), &free) == 0
        else { return false }
        return free >= size
    }

    /// Bytes of the send buffer still charged to SDUs the peer has not been sent yet (SO_SNDBUF less TIOCOUTQ's
    /// free space); 0 when the kernel does not say.
    static func sendBufferCharged(_ fd: Int32) -> Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        var free: Int32 = 0
        guard getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0, ioctl(fd, UInt(TIOCOUTQ), &free) == 0
        else { return 0 }
        return max(Int(size) - Int(free), 0)
    }

    static func sendBufferSize(_ fd: Int32) -> Int {
        var size: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &length) == 0 ? Int(size) : 0
    }

    /// The kernel drops a whole SDU that does not fit the receive buffer (kernels before 6.10 give credits
    /// regardless); a larger buffer gives the eager drain more slack when its thread is kept waiting. Best effort:
    /// SO_RCVBUFFORCE (CAP_NET_ADMIN, which handoffd has as a system service) sets 4 MiB; without it SO_RCVBUF is
    /// capped at net.core.rmem_max (212992 by default, doubled). An accepted socket does not inherit the
    /// listener's, so it is set on each.
    static func enlargeReceiveBuffer(_ fd: Int32) {
        var buffer: Int32 = 1 << 22
        let length = socklen_t(MemoryLayout<Int32>.size)
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, length) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, length)
        }
    }

    /// BT_SNDMTU (valid only once connected) or BT_RCVMTU.
    static func mtu(_ fd: Int32, _ option: Int32, what: String) throws(L2CAPError) -> Int {
        var value: UInt16 = 0
        var length = socklen_t(MemoryLayout<UInt16>.size)
        guard getsockopt(fd, SOL_BLUETOOTH, option, &value, &length) == 0 else {
            throw L2CAPError(errno: errno, "\(what): getsockopt \(option == BT_SNDMTU ? "BT_SNDMTU" : "BT_RCVMTU")")
        }
        return Int(value)
    }

    /// The socket's pending error (SO_ERROR), which reading clears; 0 if none.
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// The local (getsockname) or peer (getpeername) address and PSM.
    static func name(_ fd: Int32, peer: Bool, what: String) throws(L2CAPError) -> (L2CAPAddress, UInt16) {
        var address = sockaddr_l2()
        var length = socklen_t(MemoryLayout<sockaddr_l2>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        guard result == 0 else { throw L2CAPError(errno: errno, "\(what): \(peer ? "getpeername" : "getsockname")") }
        var bytes = [UInt8](repeating: 0, count: 6)
        cbt_sockaddr_l2_bytes(&address, &bytes)
        let kind: L2CAPAddress.Kind
        switch Int32(cbt_sockaddr_l2_type(&address)) {
        case BDADDR_LE_PUBLIC: kind = .lePublic
        case BDADDR_LE_RANDOM: kind = .leRandom
        case let other:
            throw L2CAPError(.failed, message: "\(what): not an LE socket (address type \(other))")
        }
        return (L2CAPAddress(bytes: bytes, kind: kind), cbt_sockaddr_l2_psm(&address))
    }

    static func socketAddress(of address: L2CAPAddress, psm: UInt16) -> sockaddr_l2 {
        let type = UInt8(address.kind == .lePublic ? BDADDR_LE_PUBLIC : BDADDR_LE_RANDOM)
        return address.bytes.withUnsafeBufferPointer { cbt_sockaddr_l2($0.baseAddress, type, psm) }
    }

    static func hex(_ psm: UInt16) -> String {
        let digits = String(psm, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// One socket, watched by a thread of its own blocked in `poll(2)`, which also runs the socket's readable and
/// writable handlers and its deadline. The owner turns each direction on and off (`setReading`, `setWriting`) and
/// replaces the handlers as its phase changes (connect, then data). `close()` stops the thread, which then closes
/// the descriptor itself: no handler ever sees a closed (or reused) descriptor.
///
/// Handlers run one at a time on that thread (readable first, then writable), with no lock held: a handler may
/// call anything on its own handle, `close()` included, which takes effect once it returns. While a handler runs,
/// the socket is not polled, so a handler should hand work off rather than block.
///
/// Not Dispatch read and write sources: on Linux, libdispatch's epoll bookkeeping can be left with a freed
/// muxnote when sources on descriptors are registered and cancelled concurrently, and its manager thread then
/// crashes in `_dispatch_event_loop_drain` (swift-corelibs-libdispatch issue 949). A channel's teardown while
/// another opens did exactly that in the VM (`radio-l2cap-stranger`, SIGSEGV). Nor a Dispatch queue for the
/// handlers: the first Dispatch worker thread starts libdispatch's workqueue monitor, a 1 Hz timer that would wake
/// the idle daemon every second. A thread per socket costs one sleeping thread and no wake-ups while idle; a
/// process holds a listener and a channel or two.
///
/// The handlers are level-triggered: while the direction is on and the socket is ready, the handler runs again
/// after it returns. An error or hang-up counts as ready in both directions.
final class SocketHandle: Sendable {
    let fd: Int32
    private let poller: SocketPoller

    init(fd: Int32) {
        self.fd = fd
        poller = SocketPoller(fd: fd)
    }

    deinit { close() }

    func onReadable(_ handler: @escaping @Sendable () -> Void) {
        // The replaced handler is released after the lock, in case that ends something that calls back in.
        _ = poller.update { state in
            defer { state.readable = handler }
            return state.readable
        }
    }

    func onWritable(_ handler: @escaping @Sendable () -> Void) {
        _ = poller.update { state in
            defer { state.writable = handler }
            return state.writable
        }
    }

    /// Turns the readable handler on or off (a no-op after close).
    func setReading(_ on: Bool) {
        poller.update { $0.reading = on }
    }

    /// Turns the writable handler on or off (a no-op after close).
    func setWriting(_ on: Bool) {
        poller.update { $0.writing = on }
    }

    /// Runs `action` once on the socket's thread when `delay` has passed (monotonic time), unless cancelled or the
    /// handle closed first. A handle keeps one deadline, which is enough for its one user, a connect's timeout
    /// (`Writability`): setting one replaces the one pending.
    func setDeadline(after delay: Duration, _ action: @escaping @Sendable () -> Void) {
        let deadline = SocketPoller.Deadline(instant: .now.advanced(by: delay), action: action)
        _ = poller.update { state in
            defer { state.deadline = deadline }
            return state.deadline
        }
    }

    /// Drops the pending deadline, if any; its action does not run unless it already started.
    func cancelDeadline() {
        _ = poller.update { state in
            defer { state.deadline = nil }
            return state.deadline
        }
    }

    /// Stops watching; the socket's thread closes the descriptor once its handler, if one runs, returns.
    /// Idempotent.
    func close() {
        poller.update { $0.closed = true }
    }
}

/// The thread behind a ``SocketHandle`` and the state it shares with the handle, under one lock.
final class SocketPoller: Sendable {
    struct Deadline {
        let instant: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    struct State {
        var readable: (@Sendable () -> Void)?
        var writable: (@Sendable () -> Void)?
        var reading = false
        var writing = false
        var deadline: Deadline?
        /// The socket reported an error or hang-up while neither direction was on: not polled until one is,
        /// since poll(2) reports those whether asked or not.
        var parked = false
        /// The thread read this state and is in (or about to enter) poll(2): a change must wake it. Otherwise it
        /// reads the state again before it polls, and a change needs no wake-up (nor does a handler's own).
        var polling = false
        /// Set by `close()`; the thread leaves its loop and closes the descriptors. Nothing writes to the pipe
        /// afterwards, since `update` changes nothing once it is set.
        var closed = false
    }

    private let fd: Int32
    private let state = Locked(State())
    /// A pipe that wakes the thread when the state changes: it polls `wake`, others write to `wakeWriter`.
    private let wake: Int32
    private let wakeWriter: Int32

    init(fd: Int32) {
        self.fd = fd
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed: errno \(errno)")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = ends[0]
        wakeWriter = ends[1]
        let box = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 256 << 10)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { argument in
            guard let argument else { return nil }
            Unmanaged<SocketPoller>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
        precondition(created == 0, "pthread_create failed: \(created)")
        pthread_detach(thread)
    }

    /// Changes the state and, if the thread is polling, wakes it to poll for what the state says now. Returns
    /// what `change` returns, or nil after close (when nothing changes).
    @discardableResult
    func update<Result>(_ change: (inout State) -> Result) -> Result? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let result = change(&state)
            if state.reading || state.writing { state.parked = false }
            if state.polling {
                // Under the lock, so the pipe cannot be closed meanwhile; a full pipe already wakes the thread.
                var byte: UInt8 = 1
                _ = Glibc.write(wakeWriter, &byte, 1)
            }
            return result
        }
    }

    /// poll(2)'s timeout for `deadline`: -1 without one, else the milliseconds left, rounded up so that the
    /// thread does not wake before it.
    static func pollTimeout(until deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Int32 {
        guard let deadline else { return -1 }
        let left = now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = seconds * 1000 + attoseconds / perMillisecond
            + (attoseconds % perMillisecond == 0 ? 0 : 1)
        return Int32(clamping: milliseconds)
    }

    private func run() {
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: -1, events: 0, revents: 0)]
        while true {
            let watch: (events: Int16, timeout: Int32)? = state.withLock { state in
                guard !state.closed else { return nil }
                var events: Int16 = 0
                if state.reading { events |= Int16(POLLIN) | Int16(CBT_POLLRDHUP) }
                if state.writing { events |= Int16(POLLOUT) }
                state.polling = true
                return (state.parked ? 0 : events, Self.pollTimeout(until: state.deadline?.instant, now: .now))
            }
            guard let watch else { break }
            // A negative fd is skipped by poll(2): neither direction is wanted, or the socket is parked.
            descriptors[1] = pollfd(fd: watch.events == 0 ? -1 : fd, events: watch.events, revents: 0)
            descriptors[0].revents = 0
            let polled = poll(&descriptors, 2, watch.timeout)
            let code = polled < 0 ? errno : 0
            let ready = polled > 0 ? descriptors[1].revents : 0
            let failed = ready & (Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL) | Int16(CBT_POLLRDHUP)) != 0
            let (read, write) = state.withLock { state -> (Bool, Bool) in
                state.polling = false
                // Cannot happen with these arguments; never spin on it.
                if code != 0 && code != EINTR { state.closed = true }
                let read = state.reading && (ready & Int16(POLLIN) != 0 || failed)
                let write = state.writing && (ready & Int16(POLLOUT) != 0 || failed)
                if !read && !write && failed { state.parked = true }
                return (read, write)
            }
            if polled > 0 && descriptors[0].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wake, &bytes, bytes.count) > 0 {}
            }
            if read { deliver(readable: true) }
            if write { deliver(readable: false) }
            expire()
        }
        // Handlers run only on this thread, and it is done: nothing can use the descriptor after it closes.
        let released = state.withLock { state in
            defer {
                state.readable = nil
                state.writable = nil
                state.deadline = nil
            }
            return (state.readable, state.writable, state.deadline)
        }
        _ = Glibc.close(fd)
        _ = Glibc.close(wake)
        _ = Glibc.close(wakeWriter)
        // Released here, after the lock: a handler may hold the last reference to its own handle.
        _ = released
    }

    /// Runs a handler, if the handle is open and its direction still on (the readable handler may have changed
    /// that for the writable one).
    private func deliver(readable: Bool) {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed else { return nil }
            return readable ? (state.reading ? state.readable : nil) : (state.writing ? state.writable : nil)
        }
        handler?()
    }

    /// Runs the deadline's action once its instant has passed, if the handle is open; a deadline fires once.
    private func expire() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.closed, let deadline = state.deadline, deadline.instant <= .now else { return nil }
            state.deadline = nil
            return deadline.action
        }
        action?()
    }
}

/// A FIFO with amortised O(1) push and pop (an array and a head index, compacted as it drains); a popped slot is
/// cleared at once, so a drained SDU is not kept alive.
struct FIFO<Element> {
    private var items: [Element?] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    var first: Element? { head < items.count ? items[head] : nil }

    mutating func push(_ item: Element) { items.append(item) }

    mutating func pop() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: items.count <= 1024)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Removes the first element that matches, keeping the order of the rest.
    mutating func remove(where match: (Element) -> Bool) -> Element? {
        guard let index = items[head...].firstIndex(where: { $0.map(match) ?? false }) else { return nil }
        return items.remove(at: index)
    }

    /// Empties the FIFO and returns what it held, in order.
    mutating func removeAll() -> [Element] {
        let rest = items[head...].compactMap { $0 }
        items = []
        head = 0
        return rest
    }
}
