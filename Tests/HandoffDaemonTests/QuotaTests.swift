import Foundation
import HandoffClient
import HandoffDBusClient
@testable import HandoffDaemon
@testable import HandoffKit
import HandoffTesting
import Testing

/// Issue 25, finding 8, through the daemon: the outbox has a quota that refuses a share with a clear error and
/// keeps what it holds, and the inbox's partial pushes are listed, dropped and expire on the daemon's clock.
@Suite(.serialized) struct QuotaTests {
    private func sharing(_ machine: Machine) async throws -> DBusHandoffService {
        try #require(try await machine.client() as? DBusHandoffService)
    }

    private func text(_ name: String, _ count: Int) -> ShareRequest {
        ShareRequest(kind: "text", name: name, mediaType: "text/plain", content: .bytes([UInt8](repeating: 0x61,
                                                                                              count: count)))
    }

    @Test func aShareOverTheOutboxQuotaIsRefusedAndTheItemsQueuedBeforeItAreDelivered() async throws {
        let machines = try await TwoMachines.make(laptop: {
            $0.share.outboxQuota = 4000
            $0.share.retryInterval = .milliseconds(200)
        })
        defer { Task { await machines.shutDown() } }
        await machines.ether.setReachable(machines.desktop.radio.address, false)
        let laptop = try await sharing(machines.laptop)
        let queued = [try await laptop.share(text("a.txt", 1000), to: "desktop").id,
                      try await laptop.share(text("b.txt", 1000), to: "desktop").id]
        let refused = await serviceError { _ = try await laptop.share(text("c.txt", 1000), to: "desktop") }
        #expect(refused?.remoteCode == "org.handoff.Error.OutboxFull", "\(String(describing: refused))")
        #expect(refused?.message.contains("the outbox is full") == true, "\(String(describing: refused))")
        #expect(try await laptop.outbox().map(\.id) == queued, "the refusal changed the outbox")
        await machines.ether.setReachable(machines.desktop.radio.address, true)
        let delivered = try await eventually(within: 30) {
            let entries = try await laptop.outbox()
            return entries.allSatisfy { $0.state == "delivered" } ? entries : nil
        }
        #expect(delivered.map(\.id) == queued)
        #expect(try await sharing(machines.desktop).inbox().map(\.name).sorted() == ["a.txt", "b.txt"])
        // Delivered items keep only their line: the room is back.
        _ = try await laptop.share(text("c.txt", 1000), to: "desktop")
    }

    /// A state directory whose inbox holds pushes that stopped halfway (ids filled with `bytes`, 10,000 bytes
    /// announced each), as a sender that went away leaves them; returns it and the pushes' ids.
    private func stateWithPartials(_ bytes: [UInt8], clock: VirtualClock) throws -> (URL, [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-partials-\(UUID())")
        let inbox = try ShareInbox(directory: directory.appendingPathComponent("inbox"), clock: clock)
        let sender = TrustedDevice(id: UUID(), name: "laptop", publicKey: Data(count: 32), pairedAt: clock.date)
        var ids: [String] = []
        for byte in bytes {
            let id = try #require(TransferID(bytes: [UInt8](repeating: byte, count: 8)))
            _ = try inbox.begin(TransferHeader(transferID: id, sequence: 0, metadataLength: 40, payloadLength: 10_000,
                                               recordSize: 4096), from: sender)
            ids.append(id.description)
        }
        return (directory, ids)
    }

    @Test func partialPushesAreListedDroppedAndExpireOnTheDaemonsClock() async throws {
        let clock = VirtualClock()
        let (directory, ids) = try stateWithPartials([1, 2], clock: clock)
        let desktop = try await Machine(name: "desktop", ether: InMemoryEther(seed: 9), stateDirectory: directory,
                                        configure: { $0.clock = clock })
        defer { Task { await desktop.shutDown() } }
        let owner = try await sharing(desktop)
        let listed = try await owner.inboxPartials()
        #expect(listed.map(\.id) == ids)
        #expect(listed.map(\.announcedBytes) == [10_000, 10_000] && listed.allSatisfy { $0.sender == "laptop" })
        #expect(listed.first.map { Int($0.expiresInSeconds.rounded()) } == 24 * 3600)
        try await owner.dropInboxPartial(ids[0])
        #expect(try await owner.inboxPartials().map(\.id) == [ids[1]])
        #expect(await serviceError { try await owner.dropInboxPartial(ids[0]) }?.remoteCode == "org.handoff.Error.NoItem")
        // Another user sees none of it.
        let mallory = try desktop.client(asUser: 4242)
        #expect(await serviceError { _ = try await mallory.inboxPartials() }?.code == .permissionDenied)
        #expect(await serviceError { try await mallory.dropInboxPartial(ids[1]) }?.code == .permissionDenied)
        clock.advance(by: .seconds(24 * 3600 - 1))
        #expect(try await owner.inboxPartials().map(\.id) == [ids[1]], "expired within its lifetime")
        clock.advance(by: .seconds(2))
        #expect(try await owner.inboxPartials().isEmpty, "kept past its lifetime")
    }

    @Test func theCommandLineListsAndDropsPartialPushes() async throws {
        let clock = VirtualClock()
        let (directory, ids) = try stateWithPartials([3], clock: clock)
        let desktop = try await Machine(name: "desktop", ether: InMemoryEther(seed: 10), stateDirectory: directory,
                                        configure: { $0.clock = clock })
        defer { Task { await desktop.shutDown() } }
        let handoff = try HandoffProgram(busAddress: desktop.bus.address)
        defer { handoff.remove() }
        let inbox = try await handoff.run(["inbox"])
        #expect(inbox.status == 0, "\(inbox.error)")
        #expect(inbox.error.contains("1 push(es) still arriving hold room in the inbox: 'handoff inbox list --partial'"),
                "\(inbox.error)")
        let listed = try await handoff.run(["inbox", "list", "--partial"])
        #expect(listed.output == "\(ids[0])  laptop  -  0 B/10.0 kB  expires in 1440 min\n", "\(listed.output)")
        let json = try await handoff.run(["inbox", "list", "--partial", "--json"])
        #expect(json.output.contains("\"announcedBytes\" : 10000") || json.output.contains("\"announcedBytes\":10000"),
                "\(json.output)")
        let dropped = try await handoff.run(["inbox", "drop", "--partial", ids[0]])
        #expect(dropped.status == 0, "\(dropped.error)")
        let empty = try await handoff.run(["inbox", "list", "--partial"])
        #expect(empty.output.isEmpty && empty.error.contains("no push is arriving"), "\(empty.error)")
        let again = try await handoff.run(["inbox", "drop", "--partial", ids[0]])
        #expect(again.status == 1 && again.error.contains("no partial push \(ids[0])"), "\(again.error)")
    }
}
