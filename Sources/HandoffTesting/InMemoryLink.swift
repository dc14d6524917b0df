import Foundation
import HandoffKit

/// A central's link to a peer's in-memory transfer service.
public struct InMemoryLink: RadioLink {
    let ether: InMemoryEther
    let id: UUID
    /// The peer.
    public let peer: PeerAddress
    /// The MTU fixed when the link was made.
    public let mtu: Int
    /// Notifications from the peer; ends when the link drops.
    public let notifications: AsyncStream<[UInt8]>

    /// Writes to the peer's request characteristic.
    public func write(_ value: [UInt8]) async throws {
        if let delay = await ether.conditions.delay { try await Task.sleep(for: delay) }
        try await ether.write(value, on: id)
    }

    /// Disconnects.
    public func disconnect() async {
        await ether.close(id)
    }
}
