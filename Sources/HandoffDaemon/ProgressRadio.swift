import HandoffKit
import HandoffShared

/// A `Radio` that passes everything through to another one and reports how far each incoming transfer has got,
/// so the daemon can send Progress signals. It only reads the frames' public headers (protocol.md §3): OPEN
/// gives the payload length, DATA frames the stream offsets received.
final class ProgressRadio: RadioDecorator {
    /// Called with (payload bytes received, payload length) as a transfer from a peer progresses.
    typealias Observer = @Sendable (_ received: Int, _ total: Int) -> Void

    let base: any Radio
    private let observers = Locked<[PeerAddress: Observer]>([:])
    private let transports = Locked<[PeerAddress: LinkTransport]>([:])
    private let paths = Locked<[String: LinkTransport]>([:])

    /// The transport of the last link made to `peer`.
    func lastTransport(of peer: PeerAddress) -> LinkTransport? {
        transports.withLock { $0[peer] }
    }

    /// Keeps the path of the continue of activity `id` for its D-Bus reply (``takePath(ofContinue:)``).
    func remember(_ path: LinkTransport?, ofContinue id: String) {
        paths.withLock { $0[id] = path }
    }

    /// The path kept for the continue of `id`, once.
    func takePath(ofContinue id: String) -> LinkTransport? {
        paths.withLock { $0.removeValue(forKey: id) }
    }

    init(_ base: any Radio) {
        self.base = base
    }

    /// Reports transfers from `peer` to `observer` until ``stopObserving(_:)``.
    func observe(_ peer: PeerAddress, _ observer: @escaping Observer) {
        observers.withLock { $0[peer] = observer }
    }

    /// Stops reporting transfers from `peer`.
    func stopObserving(_ peer: PeerAddress) {
        _ = observers.withLock { $0.removeValue(forKey: peer) }
    }

    func connect(to peer: PeerAddress) async throws -> any RadioLink {
        let link = try await base.connect(to: peer)
        transports.withLock { $0[peer] = link.transport }
        guard let observer = observers.withLock({ $0[peer] }) else { return link }
        return ObservedLink(link, observer: observer)
    }
}

/// A link whose notifications are watched for OPEN and DATA frames on their way to the engine.
private final class ObservedLink: RadioLink {
    let base: any RadioLink
    let notifications: AsyncStream<[UInt8]>
    var peer: PeerAddress { base.peer }
    var mtu: Int { base.mtu }
    var maximumFrameLength: Int { base.maximumFrameLength }
    var transport: LinkTransport { base.transport }
    var setup: [LinkSetupPhase] { base.setup }

    init(_ base: any RadioLink, observer: @escaping ProgressRadio.Observer) {
        self.base = base
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        notifications = stream
        let task = Task {
            var meter = TransferMeter()
            for await value in base.notifications {
                if let (received, total) = meter.observe(value) { observer(received, total) }
                continuation.yield(value)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }

    func write(_ value: [UInt8]) async throws { try await base.write(value) }
    func disconnect() async { await base.disconnect() }
}

/// Turns server frames into payload progress. The sealed stream is the metadata record, then the payload in
/// records of `recordSize` bytes, each sealed record 16 bytes longer than its plaintext.
struct TransferMeter {
    private var metadataLength = 0
    private var payloadLength = 0
    private var streamLength = 0
    private var highest = 0
    private var lastReported = -1

    /// The progress after `frame`, when it changed.
    mutating func observe(_ frame: [UInt8]) -> (Int, Int)? {
        guard frame.count >= 2, frame[0] == WireProtocol.version else { return nil }
        switch frame[1] {
        case 0x81 where frame.count >= 2 + 8 + 20:
            let header = Array(frame[10..<30])
            metadataLength = Int(header[12]) << 8 | Int(header[13])
            payloadLength = header[14..<18].reduce(0) { $0 << 8 | Int($1) }
            let recordSize = max(1, Int(header[18]) << 8 | Int(header[19]))
            let records = max(1, (payloadLength + recordSize - 1) / recordSize)
            streamLength = metadataLength + payloadLength + records * 16
            highest = 0
            return report(0)
        case 0x82 where frame.count >= 2 + 8 + 4 && streamLength > metadataLength:
            let offset = frame[10..<14].reduce(0) { $0 << 8 | Int($1) }
            highest = max(highest, offset + frame.count - 14)
            let payloadPart = max(0, highest - metadataLength)
            let received = min(payloadLength, payloadPart * payloadLength / (streamLength - metadataLength))
            return report(received)
        default:
            return nil
        }
    }

    private mutating func report(_ received: Int) -> (Int, Int)? {
        guard received != lastReported else { return nil }
        lastReported = received
        return (received, payloadLength)
    }
}
