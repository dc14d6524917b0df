import HandoffKit
import Synchronization

/// A `Radio` that forwards to another and counts `connect` calls (so a scenario can prove the engine reconnected)
/// and remembers the MTU of the last link.
final class CountingRadio: Radio {
    let base: any Radio
    private let connects = Mutex(0)
    private let mtu = Mutex<Int?>(nil)

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
        return link
    }
}
