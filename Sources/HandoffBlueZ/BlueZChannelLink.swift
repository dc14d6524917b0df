import BlueZ
import HandoffKit
import L2CAP
import HandoffShared

/// A link whose frames travel as whole SDUs on an L2CAP LE credit-based channel to the peer's published PSM.
///
/// The channel rides the LE connection that bluetoothd holds (or that the kernel made for it). Closing the link
/// closes the channel and then disconnects the device, so a later link starts on a fresh connection, and gives
/// the device's lease back only when that disconnection has finished.
final class BlueZChannelLink: RadioLink {
    let peer: PeerAddress
    let notifications: AsyncStream<[UInt8]>
    let transport: LinkTransport
    let setup: [LinkSetupPhase]
    private let channel: L2CAPChannel
    private let device: Device1
    private let lease: DeviceLease
    private let linger: Duration
    private let closed = Locked(false)
    private let pump: Task<Void, Never>
    private let log: @Sendable (String) -> Void
    private let clock: any HandoffClock
    /// Set when the peer's side ended (the pump's receive finished).
    private let ended = Locked(false)

    /// The most send buffer a write leaves charged before it returns (``write(_:)``). Each K-frame is charged
    /// about four times its size, so with 8 KiB SDUs this is about 20 KiB of them: enough to keep the link busy,
    /// and little enough that the other channel on the same LE connection is not kept waiting behind a bulk
    /// transfer. With the kernel's whole buffer (about 420 KiB, some 100 KiB of SDUs) a continue that the other
    /// machine answered while this one shared to it waited 8-14 s behind the share on a 14-20 kB/s link, and its
    /// client gave up ("the source device stopped answering"; flow-cross, Debian 13, 2026-12-07).
    static let chargedSendBufferLimit = 96 * 1024

    /// The smaller of the two SDU sizes: what either side may send.
    var maximumFrameLength: Int { min(channel.sendMTU, channel.receiveMTU) }
    /// The ATT MTU a GATT link with values this large would have, capped at 515 (ATT-sized code stays at 512).
    var mtu: Int { min(maximumFrameLength, WireProtocol.maximumValueLength) + 3 }

    init(peer: PeerAddress, channel: L2CAPChannel, device: Device1, lease: DeviceLease, setup: [LinkSetupPhase],
         linger: Duration, clock: any HandoffClock, log: @escaping @Sendable (String) -> Void) {
        self.linger = linger
        self.log = log
        self.clock = clock
        self.peer = peer
        self.channel = channel
        self.device = device
        self.lease = lease
        self.setup = setup
        self.transport = LinkTransport(.l2cap, detail: "PSM 0x\(String(channel.psm, radix: 16)), SDU "
                                           + "\(channel.sendMTU)/\(channel.receiveMTU) B")
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
        notifications = stream
        let ended = self.ended
        pump = Task {
            defer { ended.withLock { $0 = true } }
            do throws(L2CAPError) {
                while let sdu = try await channel.receive() { continuation.yield(sdu) }
                log("channel to \(peer) closed by the peer")
            } catch {
                if error.kind != .closed, error.kind != .cancelled { log("channel to \(peer) ended: \(ErrorChain.text(error))") }
            }
            continuation.finish()
        }
    }

    /// Sends one SDU, and returns once the kernel holds no more than ``chargedSendBufferLimit`` of this channel's
    /// SDUs (or the channel ended): a writer of many frames goes at the link's pace, not ahead of it.
    func write(_ value: [UInt8]) async throws {
        guard !closed.withLock({ $0 }) else { throw RadioError(.disconnected, "the channel to \(peer) is closed") }
        do {
            try await channel.send(value)
        } catch {
            throw RadioError(error, while: "send to \(peer) failed")
        }
        await channel.paced(clock: clock) { !closed.withLock { $0 } && !ended.withLock { $0 } }
    }

    /// Closes the channel and gives the device's lease back; the LE connection stays up for `linger`
    /// (`BlueZRadioOptions.channelLinger`) for the next link, then is disconnected unless one came, or while the
    /// peer's own transfer rides on it (`PeerTraffic`). Idempotent.
    func disconnect() async {
        let wasClosed = closed.withLock { state -> Bool in
            defer { state = true }
            return state
        }
        guard !wasClosed else { return }
        pump.cancel()
        channel.close()
        let device = self.device
        guard linger > .zero else {
            await lease.disconnectAndRelease(log: log) { try? await device.disconnect(timeout: .seconds(5)) }
            return
        }
        lease.releaseLingering(idle: linger, log: log) { try? await device.disconnect(timeout: .seconds(5)) }
    }
}

extension RadioError {
    /// Translates an L2CAP error met while doing `action`: a link that went away is `.disconnected`, a peer that
    /// cannot be reached or refuses is `.unreachable`, an SDU too large is `.valueTooLong`.
    init(_ error: L2CAPError, while action: String) {
        let kind: Kind
        switch error.kind {
        case .reset, .closed: kind = .disconnected
        case .refused, .unreachable, .timedOut: kind = .unreachable
        case .messageTooLong: kind = .valueTooLong
        case .unsupported, .cancelled, .failed: kind = .failed
        }
        self.init(kind, action, cause: error)
    }
}

extension L2CAPChannel {
    /// Waits on `clock`, 10 ms at a time, while more than `limit` bytes of this channel's send buffer are charged
    /// and `open()` says the channel is still in use (``BlueZChannelLink/chargedSendBufferLimit``); returns when
    /// cancelled. Each writer of many frames on a channel, ours or the transfer service's, goes at the link's pace.
    func paced(below limit: Int = BlueZChannelLink.chargedSendBufferLimit, clock: any HandoffClock,
               while open: () -> Bool) async {
        while sendBufferCharged > limit, open() {
            do { try await clock.sleep(for: .milliseconds(10)) } catch { return }
        }
    }
}
