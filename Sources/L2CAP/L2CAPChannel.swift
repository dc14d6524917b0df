import CBluetooth
import HandoffShared

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One connected LE credit-based channel (L2CAP CoC): reliable, ordered, back-pressured, whole SDUs.
///
/// Everything is driven by the socket's readiness, on the socket's own poll thread (`SocketHandle`): the readable
/// handler drains every SDU the kernel holds into the channel's own SDU queue as soon as it arrives, whether or not
/// anyone is waiting in `receive()` (kernels before 6.10 hand out credits even when the socket's receive buffer is
/// full and then drop whole SDUs, so a slow reader must never stall the socket); the writable handler is on only
/// while an SDU waits for credits.
///
/// How the end of a channel shows: SDUs already received are always delivered first; then `receive()` returns nil
/// when the peer closed the channel (its L2CAP Disconnection Request: it called close() or its process ended), and
/// throws `.reset` when the LE link under it went away (an HCI disconnection: the peer's or our adapter powered off
/// or out of range, bluetoothd dropping the link), with the errno the kernel derived from the HCI reason.
/// `send()` on a channel that ended throws `.reset`.
public final class L2CAPChannel: Sendable {
    /// The other end: its address and address type as the kernel's channel holds them.
    public let peer: L2CAPAddress
    /// This end: the adapter's address.
    public let local: L2CAPAddress
    /// The LE PSM of the channel (the listener's).
    public let psm: UInt16
    /// BT_SNDMTU: the largest SDU the peer accepts (its MTU from the LE Credit Based Connection exchange).
    public let sendMTU: Int
    /// BT_RCVMTU: the largest SDU this end accepts.
    public let receiveMTU: Int

    private let handle: SocketHandle
    private let state = Locked(State())
    private let reader: Locked<Reader>
    private let what: String

    private struct State {
        var closed = false
        /// Set once the read side ended: `nil` result for an orderly end, the error otherwise.
        var end: Result<[UInt8]?, L2CAPError>?
        var received = FIFO<[UInt8]>()
        var receivers = FIFO<Waiter<[UInt8]?>>()
        var sends = FIFO<PendingSend>()
        var nextID: UInt64 = 0
    }

    private struct PendingSend {
        let sdu: [UInt8]
        let waiter: Waiter<Void>
    }

    /// Adopts a connected L2CAP socket: reads its names and MTUs, then starts draining it.
    convenience init(handle: SocketHandle, what: String) throws(L2CAPError) {
        let fd = handle.fd
        let (local, _) = try Socket.name(fd, peer: false, what: what)
        let (peer, psm) = try Socket.name(fd, peer: true, what: what)
        self.init(handle: handle, local: local, peer: peer, psm: psm,
                  sendMTU: try Socket.mtu(fd, BT_SNDMTU, what: what),
                  receiveMTU: try Socket.mtu(fd, BT_RCVMTU, what: what))
    }

    /// Adopts a connected `SOCK_SEQPACKET` socket whose names and MTUs are known, and starts draining it. (The
    /// host tests drive it over an AF_UNIX socket pair, which has the same whole-message semantics.)
    init(handle: SocketHandle, local: L2CAPAddress, peer: L2CAPAddress, psm: UInt16, sendMTU: Int, receiveMTU: Int) {
        self.local = local
        self.peer = peer
        self.psm = psm
        self.sendMTU = sendMTU
        self.receiveMTU = receiveMTU
        self.handle = handle
        self.what = "L2CAP channel \(local.address) to \(peer) psm \(Socket.hex(psm))"
        reader = Locked(Reader(buffer: [UInt8](repeating: 0, count: max(receiveMTU, 1))))
        handle.onReadable { [weak self] in self?.drain() }
        handle.onWritable { [weak self] in self?.flushSends() }
        handle.setReading(true)
    }

    /// SDUs waiting for the kernel to take them (for tests).
    var pendingSends: Int { state.withLock { $0.sends.count } }

    /// SDUs received and not yet handed to `receive()` (for tests).
    var queuedSDUs: Int { state.withLock { $0.received.count } }

    /// Binds to `local` (which selects the adapter) and connects to `remote` on `psm`, with `BT_SECURITY` low and
    /// `BT_RCVMTU` = `receiveMTU`. The connect is non-blocking: it waits for the socket's writability up to
    /// `timeout` (`.timedOut`); the task's cancellation closes the socket and throws `.cancelled`. Nothing
    /// listening on `psm` gives `.refused`; a kernel without Bluetooth sockets gives `.unsupported`.
    ///
    /// The kernel uses the LE link to `remote` that is up (bluetoothd's, for GATT) or creates one, which needs
    /// `remote` to advertise connectably.
    public static func connect(
        from local: L2CAPAddress, to remote: L2CAPAddress, psm: UInt16, receiveMTU: Int = 65535,
        timeout: Duration = .seconds(10)
    ) async throws(L2CAPError) -> L2CAPChannel {
        let what = "L2CAP connect from \(local.address) to \(remote) psm \(Socket.hex(psm))"
        guard psm != 0 else { throw L2CAPError(.failed, message: "\(what): the peer's PSM cannot be 0") }
        guard (23...65535).contains(receiveMTU) else {
            throw L2CAPError(.failed, message: "\(what): receive MTU \(receiveMTU) is outside 23...65535")
        }
        guard !Task.isCancelled else { throw .cancelled(what) }
        let fd = try Socket.open()
        let handle = SocketHandle(fd: fd)
        try Socket.bind(fd, to: local, psm: 0)
        try Socket.configure(fd, receiveMTU: receiveMTU, what: what)
        var address = Socket.socketAddress(of: remote, psm: psm)
        let started = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_l2>.size))
            }
        }
        if started != 0 {
            let code = errno
            guard code == EINPROGRESS || code == EAGAIN else { throw L2CAPError(errno: code, what) }
            try await Writability.wait(for: handle, timeout: timeout, what: what).get()
            let failure = Socket.pendingError(fd)
            guard failure == 0 else { throw L2CAPError(errno: failure, what) }
        }
        return try L2CAPChannel(handle: handle, what: what)
    }

    /// Bytes of the kernel's send buffer charged to SDUs not yet handed to the controller: each K-frame is charged
    /// several times its size (about 800 bytes for ~190), so this says how far behind the link the writer is, not
    /// how many bytes of SDU wait. 0 when the kernel does not say.
    public var sendBufferCharged: Int { Socket.sendBufferCharged(handle.fd) }

    /// Sends one whole SDU (at most `sendMTU` bytes, else `.messageTooLong`). The kernel takes an SDU whole or
    /// not at all; without credits or send buffer it says EAGAIN, and the SDU waits here for writability.
    /// Concurrent sends go out in call order. A cancelled send that had not reached the kernel is not sent.
    public func send(_ sdu: [UInt8]) async throws(L2CAPError) {
        guard sdu.count <= sendMTU else {
            throw L2CAPError(.messageTooLong, message: "\(what): an SDU of \(sdu.count) bytes exceeds the send MTU "
                + "of \(sendMTU)")
        }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let result: Result<Void, L2CAPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Waiter(id: id, continuation: continuation)
                let now: Result<Void, L2CAPError>? = state.withLock { state in
                    if state.closed { return .failure(.closed(what)) }
                    if Task.isCancelled { return .failure(.cancelled(what)) }
                    if state.sends.isEmpty {
                        switch write(sdu) {
                        case .sent: return .success(())
                        case .failed(let error): return .failure(error)
                        case .wouldBlock: break
                        }
                    }
                    state.sends.push(PendingSend(sdu: sdu, waiter: waiter))
                    if state.sends.count == 1 { handle.setWriting(true) }
                    return nil
                }
                if let now { waiter.resume(now) }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                let found = state.sends.remove { $0.waiter.id == id }
                if state.sends.isEmpty { handle.setWriting(false) }
                return found
            }
            cancelled?.waiter.resume(.failure(.cancelled(what)))
        }
        try result.get()
    }

    /// The next SDU, or nil once the peer ended the channel (see the type's documentation). Throws `.reset` when
    /// the link was lost, `.closed` after `close()`, `.cancelled` when the task is cancelled.
    public func receive() async throws(L2CAPError) -> [UInt8]? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let result: Result<[UInt8]?, L2CAPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Waiter(id: id, continuation: continuation)
                let now: Result<[UInt8]?, L2CAPError>? = state.withLock { state in
                    if state.closed { return .failure(.closed(what)) }
                    if let sdu = state.received.pop() { return .success(sdu) }
                    if let end = state.end { return end }
                    if Task.isCancelled { return .failure(.cancelled(what)) }
                    state.receivers.push(waiter)
                    return nil
                }
                if let now { waiter.resume(now) }
            }
        } onCancel: {
            let cancelled = state.withLock { $0.receivers.remove { $0.id == id } }
            cancelled?.resume(.failure(.cancelled(what)))
        }
        return try result.get()
    }

    /// Shuts the channel down (the kernel sends its Disconnection Request) and closes the socket. Idempotent.
    /// Pending and later sends and receives throw `.closed`. SDUs the kernel accepted but has not sent yet (for
    /// want of credits) are discarded, so close after the peer confirmed what matters.
    public func close() {
        let taken = state.withLock { state -> ([Waiter<[UInt8]?>], [PendingSend])? in
            guard !state.closed else { return nil }
            state.closed = true
            _ = state.received.removeAll()
            return (state.receivers.removeAll(), state.sends.removeAll())
        }
        guard let (receivers, sends) = taken else { return }
        // The descriptor stays open until the handle's thread stops, so this cannot hit a reused fd.
        _ = shutdown(handle.fd, Int32(SHUT_RDWR))
        handle.close()
        for receiver in receivers { receiver.resume(.failure(.closed(what))) }
        for send in sends { send.waiter.resume(.failure(.closed(what))) }
    }

    // MARK: Readiness (on the socket's poll thread)

    private enum WriteOutcome {
        case sent, wouldBlock
        case failed(L2CAPError)
    }

    /// One non-blocking send(2) of a whole SDU.
    private func write(_ sdu: [UInt8]) -> WriteOutcome {
        while true {
            let sent = sdu.withUnsafeBytes { bytes in
                Glibc.send(handle.fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 { return .sent }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(L2CAPError(errno: code, "\(what): send of \(sdu.count) bytes"))
            }
        }
    }

    /// The socket is writable: sends the waiting SDUs in order until the kernel says EAGAIN again.
    private func flushSends() {
        var finished: [(Waiter<Void>, Result<Void, L2CAPError>)] = []
        state.withLock { state in
            guard !state.closed else { return }
            while let next = state.sends.first {
                switch write(next.sdu) {
                case .wouldBlock:
                    // Writable (credits, buffer below half) yet refused with nothing in flight: this SDU's
                    // K-frames can never fit the send buffer. Fail it rather than retry for ever.
                    guard Socket.sendBufferIsEmpty(handle.fd) else { return }
                    finished.append((next.waiter, .failure(L2CAPError(.messageTooLong, message: "\(what): the "
                        + "kernel's send buffer (\(Socket.sendBufferSize(handle.fd)) bytes) cannot hold the "
                        + "K-frames of an SDU of \(next.sdu.count) bytes; send smaller SDUs"))))
                case .sent: finished.append((next.waiter, .success(())))
                case .failed(let error): finished.append((next.waiter, .failure(error)))
                }
                _ = state.sends.pop()
            }
            handle.setWriting(false)
        }
        for (waiter, result) in finished { waiter.resume(result) }
    }

    /// The read side's own state, touched only on the socket's poll thread.
    private struct Reader {
        var buffer: [UInt8]
        /// An error recv(2) reported: the kernel reports a pending socket error once, before SDUs still queued
        /// behind it, so the drain reads on and lets it decide how the end is reported.
        var failure: Int32?
    }

    /// The socket is readable: reads every SDU the socket holds (until EAGAIN) into the queue, or hands it to a
    /// waiting receiver; at the end of the stream, settles how the channel ended.
    private func drain() {
        var delivered: [(Waiter<[UInt8]?>, Result<[UInt8]?, L2CAPError>)] = []
        defer { for (waiter, result) in delivered { waiter.resume(result) } }
        let end: Result<[UInt8]?, L2CAPError>? = reader.withLock { reader in
            // A hangup is confirmed by one more read: SDUs that arrived between the read and the poll are queued
            // before the kernel marks the end.
            var ending: Result<[UInt8]?, L2CAPError>?
            var errorsInARow = 0
            while true {
                let count = reader.buffer.withUnsafeMutableBytes { bytes in
                    recv(handle.fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT))
                }
                let code = count < 0 ? errno : 0
                if code == EINTR { continue }
                if code != 0, code != EAGAIN, code != EWOULDBLOCK {
                    // Twice in a row is not a pending error reported once: the socket is broken.
                    errorsInARow += 1
                    guard errorsInARow == 1 else {
                        return .failure(L2CAPError(.reset, errno: code, message: "\(what): receive: "
                            + L2CAPError.describe(errno: code)))
                    }
                    reader.failure = code
                    continue
                }
                if count <= 0 {
                    if let ending { return ending }
                    ending = hangup(&reader.failure)
                    if ending != nil { continue }
                    // recv(2) returns 0 both for an empty SDU and at the end of the stream.
                    if count < 0 { return nil }
                }
                let sdu = Array(reader.buffer[0..<max(count, 0)])
                ending = nil
                errorsInARow = 0
                state.withLock { state in
                    guard !state.closed else { return }
                    if let receiver = state.receivers.pop() {
                        delivered.append((receiver, .success(sdu)))
                    } else {
                        state.received.push(sdu)
                    }
                }
            }
        }
        guard let end else { return }
        handle.setReading(false)
        state.withLock { state in
            guard !state.closed, state.end == nil else { return }
            state.end = end
            for receiver in state.receivers.removeAll() { delivered.append((receiver, end)) }
        }
        // Sends waiting for credits learn the kernel's verdict now rather than at the next readiness.
        flushSends()
    }

    /// Whether the stream has ended, and how, once no SDU is left: the peer's Disconnection Request shuts the
    /// socket's read side (POLLRDHUP): nil, an orderly end. A lost link (HCI disconnection: the peer's or our
    /// adapter went away or dropped the link) only closes it (POLLHUP): `.reset`, with the errno the kernel
    /// derived from the HCI reason (ECONNRESET, ETIMEDOUT, ECONNABORTED...).
    private func hangup(_ failure: inout Int32?) -> Result<[UInt8]?, L2CAPError>? {
        var descriptor = pollfd(fd: handle.fd, events: Int16(POLLIN) | Int16(CBT_POLLRDHUP), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return nil }
        let events = Int32(descriptor.revents)
        if events & Int32(CBT_POLLRDHUP) != 0 { return .success(nil) }
        guard events & Int32(POLLHUP) != 0 else { return nil }
        let code = failure ?? Socket.pendingError(handle.fd)
        failure = code
        let reason = code == 0 ? "the link was lost" : "the link was lost: \(L2CAPError.describe(errno: code))"
        return .failure(L2CAPError(.reset, errno: code == 0 ? nil : code, message: "\(what): \(reason)"))
    }
}

/// Waits once for a socket's writability (a non-blocking connect's completion), with a deadline and the task's
/// cancellation; whichever comes first wins.
enum Writability {
    static func wait(for handle: SocketHandle, timeout: Duration, what: String) async -> Result<Void, L2CAPError> {
        let once = Once()
        handle.onWritable { once.finish(.success(())) }
        handle.setWriting(true)
        handle.setDeadline(after: timeout) {
            once.finish(.failure(L2CAPError(.timedOut, message: "\(what): no answer within \(timeout)")))
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { once.wait($0) }
        } onCancel: {
            once.finish(.failure(.cancelled(what)))
        }
        handle.cancelDeadline()
        handle.setWriting(false)
        return result
    }

    /// A continuation resumed exactly once, by whichever of `finish` or `wait` completes the pair.
    private final class Once: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<Result<Void, L2CAPError>, Never>)
            case finished(Result<Void, L2CAPError>)
            case done
        }

        private let state = Locked(State.idle)

        func wait(_ continuation: CheckedContinuation<Result<Void, L2CAPError>, Never>) {
            let ready: Result<Void, L2CAPError>? = state.withLock { state in
                if case .finished(let result) = state {
                    state = .done
                    return result
                }
                state = .waiting(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }

        func finish(_ result: Result<Void, L2CAPError>) {
            let waiting: CheckedContinuation<Result<Void, L2CAPError>, Never>? = state.withLock { state in
                switch state {
                case .idle:
                    state = .finished(result)
                    return nil
                case .waiting(let continuation):
                    state = .done
                    return continuation
                case .finished, .done:
                    return nil
                }
            }
            waiting?.resume(returning: result)
        }
    }
}
