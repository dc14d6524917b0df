import CBluetooth
import HandoffShared

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A listening LE CoC socket (`SOCK_SEQPACKET`, `BTPROTO_L2CAP`) bound to one adapter's address.
///
/// Incoming channels are accepted as soon as the kernel has them (on the listening socket's poll thread),
/// so each starts draining its SDUs at once, even before `accept()` hands it out; at most `backlog` of them wait
/// here, beyond that the kernel's own backlog holds the rest and then refuses.
public final class L2CAPListener: Sendable {
    /// The LE PSM peers connect to: the one asked for, or the dynamic one (0x80-0xFF) the kernel chose for 0.
    public let psm: UInt16
    /// The adapter's address the socket is bound to.
    public let local: L2CAPAddress

    private let handle: SocketHandle
    private let backlog: Int
    private let what: String
    private let state = Locked(State())

    private struct State {
        var closed = false
        var ready = FIFO<L2CAPChannel>()
        var waiters = FIFO<Waiter<L2CAPChannel>>()
        var nextID: UInt64 = 0
        /// Whether the readable handler is on: while fewer than `backlog` channels wait to be handed out.
        var accepting = true
    }

    /// Binds to `local` on `psm` (0: the kernel chooses a free dynamic LE PSM, read back with getsockname), with
    /// `BT_SECURITY` low (payloads are sealed end to end) and `BT_RCVMTU` = `receiveMTU`, and listens.
    /// A fixed `psm` must be a dynamic LE PSM (0x80-0xFF) unless the process may bind privileged ones.
    public static func listen(
        on local: L2CAPAddress, psm: UInt16 = 0, receiveMTU: Int = 65535, backlog: Int32 = 8
    ) throws(L2CAPError) -> L2CAPListener {
        let what = "L2CAP listen on \(local) psm \(psm == 0 ? "dynamic" : Socket.hex(psm))"
        guard (23...65535).contains(receiveMTU) else {
            throw L2CAPError(.failed, message: "\(what): receive MTU \(receiveMTU) is outside 23...65535")
        }
        guard backlog > 0 else { throw L2CAPError(.failed, message: "\(what): backlog \(backlog) must be positive") }
        let fd = try Socket.open()
        let handle = SocketHandle(fd: fd)
        try Socket.bind(fd, to: local, psm: psm)
        try Socket.configure(fd, receiveMTU: receiveMTU, what: what)
        guard Glibc.listen(fd, backlog) == 0 else { throw L2CAPError(errno: errno, "\(what): listen") }
        let (bound, chosen) = try Socket.name(fd, peer: false, what: what)
        return L2CAPListener(handle: handle, local: bound, psm: chosen, backlog: Int(backlog))
    }

    private init(handle: SocketHandle, local: L2CAPAddress, psm: UInt16, backlog: Int) {
        self.handle = handle
        self.local = local
        self.psm = psm
        self.backlog = backlog
        self.what = "L2CAP listener on \(local) psm \(Socket.hex(psm))"
        handle.onReadable { [weak self] in self?.acceptReady() }
        handle.setReading(true)
    }

    /// The next incoming channel. Throws `.closed` once `close()` was called (also for a pending accept),
    /// `.cancelled` on task cancellation.
    public func accept() async throws(L2CAPError) -> L2CAPChannel {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let result: Result<L2CAPChannel, L2CAPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiter = Waiter(id: id, continuation: continuation)
                let now: Result<L2CAPChannel, L2CAPError>? = state.withLock { state in
                    if state.closed { return .failure(.closed(what)) }
                    if Task.isCancelled { return .failure(.cancelled(what)) }
                    if let channel = state.ready.pop() {
                        resumeAccepting(&state)
                        return .success(channel)
                    }
                    state.waiters.push(waiter)
                    resumeAccepting(&state)
                    return nil
                }
                if let now { waiter.resume(now) }
            }
        } onCancel: {
            let cancelled = state.withLock { $0.waiters.remove { $0.id == id } }
            cancelled?.resume(.failure(.cancelled(what)))
        }
        return try result.get()
    }

    /// Stops listening and closes the socket; channels accepted but not yet handed out are closed; a pending
    /// `accept()` throws `.closed`. Channels already handed out stay open. Idempotent.
    public func close() {
        let taken = state.withLock { state -> ([Waiter<L2CAPChannel>], [L2CAPChannel])? in
            guard !state.closed else { return nil }
            state.closed = true
            return (state.waiters.removeAll(), state.ready.removeAll())
        }
        guard let (waiters, unclaimed) = taken else { return }
        handle.close()
        for channel in unclaimed { channel.close() }
        for waiter in waiters { waiter.resume(.failure(.closed(what))) }
    }

    private func resumeAccepting(_ state: inout State) {
        guard !state.accepting, state.ready.count < backlog else { return }
        state.accepting = true
        handle.setReading(true)
    }

    /// The socket is readable: accepts every pending channel (until EAGAIN), handing each to a waiting `accept()`
    /// or keeping it; stops reading while `backlog` channels are kept.
    private func acceptReady() {
        var delivered: [(Waiter<L2CAPChannel>, L2CAPChannel)] = []
        defer { for (waiter, channel) in delivered { waiter.resume(.success(channel)) } }
        while true {
            let full = state.withLock { state in
                guard !state.closed else { return true }
                guard state.ready.count < backlog else {
                    state.accepting = false
                    handle.setReading(false)
                    return true
                }
                return false
            }
            if full { return }
            let child = Socket.accept(handle.fd)
            guard child >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN, EWOULDBLOCK: return
                default:
                    // Out of descriptors or memory: stop until the next accept() call rather than spin on a
                    // readiness that stays; that call and the ones waiting see the error.
                    let error = L2CAPError(errno: errno, "\(what): accept")
                    let waiters = state.withLock { state in
                        state.accepting = false
                        handle.setReading(false)
                        return state.waiters.removeAll()
                    }
                    for waiter in waiters { waiter.resume(.failure(error)) }
                    return
                }
            }
            let childHandle = SocketHandle(fd: child)
            // A channel whose peer left before we looked at it fails here; its descriptor closes with the handle.
            guard let channel = try? L2CAPChannel(handle: childHandle, what: "\(what): accepted channel") else {
                continue
            }
            let unwanted: L2CAPChannel? = state.withLock { state in
                if state.closed { return channel }
                if let waiter = state.waiters.pop() {
                    delivered.append((waiter, channel))
                } else {
                    state.ready.push(channel)
                }
                return nil
            }
            unwanted?.close()
        }
    }
}
