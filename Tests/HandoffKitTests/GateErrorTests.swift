import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Issue 25, finding 1: nobody in range ends someone else's continue or share. GATT notifications reach every
/// subscriber (`LinkConditions.broadcastNotifications`, as BlueZ does), so a stranger who subscribes and writes
/// garbage, or a REQUEST/PUSH it cannot authenticate with someone else's nonce or transfer id, makes the source
/// broadcast ERRORs. None may end the session.
struct GateErrorTests {
    /// Runs `attack` on its own link to `target` until `work` ends, then cancels it.
    private func underAttack<T: Sendable>(of target: PeerAddress, on ether: InMemoryEther,
                                          attack: @escaping @Sendable (any RadioLink, [UInt8]) async -> Void,
                                          _ work: () async throws -> T) async throws -> T {
        let stranger = try await ether.makeRadio(address: "sim:eve").connect(to: target)
        let sniffer = Task {
            for await value in stranger.notifications { await attack(stranger, value) }
        }
        let garbage = Task {
            while !Task.isCancelled {
                try? await stranger.write([WireProtocol.version, 0x7F])   // "01 7F" in version 1
                await Task.yield()
            }
        }
        defer { sniffer.cancel(); garbage.cancel() }
        let result = try await work()
        await stranger.disconnect()
        return result
    }

    @Test func aStrangersGarbageAndForgedRequestsDoNotEndAContinue() async throws {
        let ether = InMemoryEther()
        var broadcast = LinkConditions()
        broadcast.broadcastNotifications = true
        await ether.setConditions(broadcast)
        // The stranger's garbage loop only yields: on a loaded host it can keep the engines from running for longer
        // than the fixtures' 4 × 0.5 s stall window of the real clock, which would fail the continue for time, not
        // for anything the stranger wrote. The window is what this test does not measure.
        let (source, receiver, _) = try await makePair(ether: ether, configure: { $0.stallInterval = .seconds(20) })
        let content = Data(Gate25.pattern(30_000))
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": .data(content)]
        let remote = try await offer(activity, from: source, to: receiver)
        let sequence = try #require(await source.engine.lastSequence)
        let outcome = try await underAttack(of: source.radio.address, on: ether, attack: { link, value in
            // Someone's OPEN went by: refuse their request in their name (a REQUEST with their nonce, no key).
            guard value.count >= 10, value[1] == 0x81, let nonce = Nonce(bytes: Array(value[2..<10])) else { return }
            let forged = TransferFrame.request(sequence: sequence, nonce: nonce, mac: [UInt8](repeating: 0, count: 16))
            try? await link.write(forged.encoded())
        }) {
            await receiver.engine.continueActivity(remote)
        }
        #expect(outcome.error == nil, "\(outcome)")
        #expect(outcome.activity?.userInfo["content"] == .data(content))
    }

    @Test func aStrangersGarbageAndForgedPushesDoNotEndAShare() async throws {
        let ether = InMemoryEther()
        var broadcast = LinkConditions()
        broadcast.broadcastNotifications = true
        await ether.setConditions(broadcast)
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether, configure: { $0.stallInterval = .seconds(20) })
        let blob = Gate25.pattern(40_000)
        try await underAttack(of: receiver.radio.address, on: ether, attack: { link, value in
            // Someone's ACCEPT or CHALLENGE went by: push that transfer id in someone else's name.
            guard value.count >= 10, value[1] == 0xB0 || value[1] == 0xB3,
                  let id = TransferID(bytes: Array(value[2..<10])) else { return }
            // PUSH: transfer id, a sender id, a header naming the same transfer, a MAC it cannot make.
            var forged: [UInt8] = [WireProtocol.version, 0x30] + id.bytes + [UInt8](repeating: 7, count: 16)
            forged += id.bytes + [0, 0, 0, 0, 0, 40, 0, 0, 0x10, 0, 0x10, 0] + [UInt8](repeating: 0, count: 16)
            try? await link.write(forged)
        }) {
            try await senders[0].engine.push(OutgoingShare(
                metadata: ShareMetadata(kind: .file, name: "b.bin", mediaType: "application/octet-stream"),
                content: .bytes(blob)), to: receiver.store.identity.id)
        }
        let item = try #require(inbox.items().first)
        #expect([UInt8](try Data(contentsOf: inbox.dataURL(of: item.id))) == blob)
    }
}
