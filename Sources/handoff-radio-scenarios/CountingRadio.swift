import HandoffKit
import Synchronization

/// A `Radio` that forwards to another and counts `connect` calls (so a scenario can prove the engine reconnected),
/// the writes and notifications of its links (so it can show what loss cost), and remembers the last link's MTU.
final class CountingRadio: Radio {
    let base: any Radio
    private let connects = Mutex(0)
    private let mtu = Mutex<Int?>(nil)
    let traffic = LinkTraffic()

    init(_ base: any Radio) { self.base = base }

    /// How many times `connect(to:)` was called.
    var connectCount: Int { connects.withLock { $0 } }
    /// The ATT MTU of the last link made.
    var lastMTU: Int? { mtu.withLock { $0 } }

    func advertise(_ beacon: [UInt8]) async throws { try await base.advertise(beacon) }
    func stopAdvertising() async { await base.stopAdvertising() }
    func scan() async throws -> AsyncStream<ScanEvent> { try await base.scan() }
    func openTransferService() async throws -> any TransferService { try await base.openTransferService() }

    func connect(to peer: PeerAddress) async throws -> any RadioLink {
        connects.withLock { $0 += 1 }
        let link = try await base.connect(to: peer)
        mtu.withLock { $0 = link.mtu }
        return CountingLink(link, traffic: traffic)
    }
}

/// Writes sent and notifications received over a radio's links.
final class LinkTraffic: Sendable {
    private let counts = Mutex((writes: 0, notifications: 0))

    var writes: Int { counts.withLock { $0.writes } }
    var notifications: Int { counts.withLock { $0.notifications } }

    func wrote() { counts.withLock { $0.writes += 1 } }
    func notified() { counts.withLock { $0.notifications += 1 } }
}

/// A link that counts its traffic into a `LinkTraffic`.
final class CountingLink: RadioLink {
    let base: any RadioLink
    let notifications: AsyncStream<[UInt8]>
    private let traffic: LinkTraffic
    private let pump: Task<Void, Never>

    init(_ base: any RadioLink, traffic: LinkTraffic) {
        self.base = base
        self.traffic = traffic
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
        notifications = stream
        pump = Task {
            for await value in base.notifications {
                traffic.notified()
                continuation.yield(value)
            }
            continuation.finish()
        }
    }

    var peer: PeerAddress { base.peer }
    var mtu: Int { base.mtu }
    var maximumFrameLength: Int { base.maximumFrameLength }
    var transport: LinkTransport { base.transport }
    var setup: [LinkSetupPhase] { base.setup }

    func write(_ value: [UInt8]) async throws {
        traffic.wrote()
        try await base.write(value)
    }

    func disconnect() async {
        pump.cancel()
        await base.disconnect()
    }
}
