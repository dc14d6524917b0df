import Foundation
import HandoffClient
import HandoffDBusClient
import HandoffKit
import HandoffTesting
import Testing

/// Issue 25, finding 1, as the user sees it: a stranger who subscribes to the receiver and writes garbage while a
/// share is in flight (its ERRORs reach every subscriber, as BlueZ sends them) does not fail the item. The outbox
/// keeps it and reports it delivered, and it is whole in the other inbox.
@Suite(.serialized) struct GateThroughDaemonTests {
    @Test func aStrangersGarbageDuringAShareDoesNotFailTheOutboxItem() async throws {
        let machines = try await TwoMachines.make(laptop: { $0.share.retryInterval = .milliseconds(200) })
        defer { Task { await machines.shutDown() } }
        var broadcast = LinkConditions()
        broadcast.broadcastNotifications = true
        await machines.ether.setConditions(broadcast)
        let laptop = try #require(try await machines.laptop.client() as? DBusHandoffService)
        let desktop = try #require(try await machines.desktop.client() as? DBusHandoffService)
        let stranger = try await machines.ether.makeRadio(address: "sim:eve").connect(to: machines.desktop.radio.address)
        let garbage = Task {
            while !Task.isCancelled {
                try? await stranger.write([WireProtocol.version, 0x7F])   // "01 7F" in version 1
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { garbage.cancel() }
        let blob = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let id = try await laptop.share(ShareRequest(kind: "file", name: "kept.bin", mediaType: "application/octet-stream",
                                                     content: .bytes(blob)), to: "desktop").id
        let entry = try await eventually(within: 60) { () async throws -> OutboxEntry? in
            try await laptop.outbox().first { $0.id == id && $0.isFinal }
        }
        garbage.cancel()
        #expect(entry.state == "delivered", "\(entry.reason)")
        #expect(try await desktop.inbox().map(\.sizeBytes) == [blob.count])
        await stranger.disconnect()
    }
}
