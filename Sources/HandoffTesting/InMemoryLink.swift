import Foundation
import HandoffKit

/// A central's link to a peer's in-memory transfer service: GATT-like, or a channel (`LinkConditions.channel`).
public struct InMemoryLink: RadioLink {
    let ether: InMemoryEther
    let id: UUID
    /// The peer.
    public let peer: PeerAddress
    /// The MTU fixed when the link was made.
    public let mtu: Int
    /// One ATT value at `mtu` on GATT, the channel's SDU size on a channel.
    public let maximumFrameLength: Int
    /// GATT, a channel, or GATT after a fallback (`LinkConditions.channel`).
    public let transport: LinkTransport
    /// Notifications from the peer; ends when the link drops.
    public let notifications: AsyncStream<[UInt8]>

    /// Writes to the peer's request characteristic, or sends one SDU on the channel.
    public func write(_ value: [UInt8]) async throws {
        while await ether.conditions.writesHang { try await ether.clock.sleep(for: .milliseconds(20)) }
        if let delay = await ether.conditions.delay { try await ether.clock.sleep(for: delay) }
        try await ether.write(value, on: id)
    }

    /// Disconnects.
    public func disconnect() async {
        await ether.close(id)
    }
}
