import CBluetooth
import Dispatch
import Synchronization

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
    }

    /// The kernel drops a whole SDU that does not fit the receive buffer (kernels before 6.10 give credits
    /// regardless); a larger buffer gives the eager drain more slack. Best effort: the kernel caps it at rmem_max.
    /// An accepted socket does not inherit the listener's, so it is set on each.
    static func enlargeReceiveBuffer(_ fd: Int32) {
        var buffer: Int32 = 1 << 22
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
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

/// One socket and its Dispatch read and write sources on one serial queue, both created suspended. The owner
/// turns each on and off (`setReading`, `setWriting`) and replaces their handlers as its phase changes (connect,
/// then data). `close()` cancels both; the descriptor is closed only after both cancel handlers ran, so Dispatch
/// never watches a closed (or reused) descriptor.
final class SocketHandle: Sendable {
    let fd: Int32
    let queue: DispatchQueue

    private struct Sources {
        var read: (any DispatchSourceRead)?
        var write: (any DispatchSourceWrite)?
        var reading = false
        var writing = false
    }

    private let sources: Mutex<Sources>

    init(fd: Int32, label: String) {
        self.fd = fd
        let queue = DispatchQueue(label: label)
        self.queue = queue
        let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let write = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        let closer = DescriptorCloser(fd: fd, sources: 2)
        read.setCancelHandler { closer.release() }
        write.setCancelHandler { closer.release() }
        sources = Mutex(Sources(read: read, write: write))
    }

    deinit { close() }

    func onReadable(_ handler: @escaping @Sendable () -> Void) {
        sources.withLock { $0.read?.setEventHandler(handler: handler) }
    }

    func onWritable(_ handler: @escaping @Sendable () -> Void) {
        sources.withLock { $0.write?.setEventHandler(handler: handler) }
    }

    /// Resumes or suspends the read source (a no-op after close).
    func setReading(_ on: Bool) {
        sources.withLock { state in
            guard let read = state.read, state.reading != on else { return }
            state.reading = on
            if on { read.resume() } else { read.suspend() }
        }
    }

    /// Resumes or suspends the write source (a no-op after close).
    func setWriting(_ on: Bool) {
        sources.withLock { state in
            guard let write = state.write, state.writing != on else { return }
            state.writing = on
            if on { write.resume() } else { write.suspend() }
        }
    }

    /// Cancels both sources; the descriptor closes once they are gone. Idempotent.
    func close() {
        sources.withLock { state in
            if let read = state.read {
                read.cancel()
                if !state.reading { read.resume() }  // a suspended source never runs its cancel handler
            }
            if let write = state.write {
                write.cancel()
                if !state.writing { write.resume() }
            }
            state = Sources()
        }
    }
}

/// Closes a descriptor when the last of its Dispatch sources has been cancelled.
private final class DescriptorCloser: Sendable {
    let fd: Int32
    let remaining: Atomic<Int>

    init(fd: Int32, sources: Int) {
        self.fd = fd
        self.remaining = Atomic(sources)
    }

    func release() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { _ = Glibc.close(fd) }
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
