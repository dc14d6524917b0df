import Foundation
@testable import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Issue 25, the gate's last rule (`Gate.Writer`): a central that writes what no client of ours writes loses its
/// link. On real radios a stranger's link costs more than its frames: a Linux 6.1 controller that is a peripheral
/// to it does not connect out, and a source may not advertise while it holds the link. Those who write what our
/// clients write keep theirs.
struct GateDropTests {
    /// A short grace, so that the tests need not wait the default second.
    private static let quick: @Sendable (inout HandoffConfiguration) -> Void = { $0.strangerDropGrace = .milliseconds(20) }

    /// Waits until `link`'s notifications end (the peripheral dropped it), collecting what came before.
    private func untilDropped(_ link: any RadioLink) async throws -> [[UInt8]] {
        try await withThrowingTaskGroup(of: [[UInt8]]?.self) { group in
            group.addTask {
                var received: [[UInt8]] = []
                for await value in link.notifications { received.append(value) }
                return received
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))   // a guard against a hang, not a timing assertion
                return nil
            }
            defer { group.cancelAll() }
            guard let received = try await group.next() ?? nil else { throw TimedOut() }
            return received
        }
    }

    @Test func aStrangerWritingGarbageLosesItsLinkAndAContinueGoesOn() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether, configure: Self.quick)
        let content = Data(Gate25.pattern(20_000))
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": .data(content)]
        let remote = try await offer(activity, from: source, to: receiver)

        let stranger = try await ether.makeRadio(address: "sim:eve").connect(to: source.radio.address)
        try await stranger.write([WireProtocol.version, 0x7F])
        let answers = try await untilDropped(stranger)
        #expect(answers.count == 1, "the refusal reaches the writer before its link goes")
        await #expect(throws: RadioError.self) { try await stranger.write([WireProtocol.version, 0x7F]) }
        #expect(await ether.statistics.droppedCentrals == 1)

        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.error == nil, "\(outcome)")
        #expect(outcome.activity?.userInfo["content"] == .data(content))
        #expect(await ether.statistics.droppedCentrals == 1, "the paired receiver keeps its link")
    }

    @Test func aDroppedStrangerIsKeptAwayForTheCooldownThenLetInAgain() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether, configure: {
            Self.quick(&$0)
            $0.strangerCooldown = .milliseconds(300)
        })
        let remote = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let eve = ether.makeRadio(address: "sim:eve")
        let stranger = try await eve.connect(to: source.radio.address)
        try await stranger.write([WireProtocol.version, 0x7F])
        _ = try await untilDropped(stranger)

        await #expect(throws: RadioError.self, "its device is refused during the cooldown") {
            try await eve.connect(to: source.radio.address)
        }
        #expect(await ether.statistics.connectsKeptAway == 1)
        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.error == nil, "the paired receiver is not kept away: \(outcome)")

        // After the cooldown it may connect again (and would be dropped again for garbage).
        var again: (any RadioLink)?
        for _ in 0..<200 where again == nil {
            again = try? await eve.connect(to: source.radio.address)
            if again == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(again != nil, "the stranger was kept away for good")
        await again?.disconnect()
    }

    @Test func withNoCooldownADroppedStrangerMayConnectAgainAtOnce() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether, configure: {
            Self.quick(&$0)
            $0.strangerCooldown = .zero
        })
        _ = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let eve = ether.makeRadio(address: "sim:eve")
        let stranger = try await eve.connect(to: source.radio.address)
        try await stranger.write([WireProtocol.version, 0x7F])
        _ = try await untilDropped(stranger)
        let again = try await eve.connect(to: source.radio.address)
        #expect(await ether.statistics.connectsKeptAway == 0)
        await again.disconnect()
    }

    @Test func aForgedRequestIsRefusedThenItsWriterDropped() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether, configure: Self.quick)
        _ = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let sequence = try #require(await source.engine.lastSequence)
        let stranger = try await ether.makeRadio(address: "sim:eve").connect(to: source.radio.address)
        let forged = TransferFrame.request(sequence: sequence, nonce: strangerNonce,
                                           mac: [UInt8](repeating: 0xAA, count: 16))
        try await stranger.write(forged.encoded())
        let answers = try await untilDropped(stranger)
        let refusal = try #require(answers.first.flatMap { try? TransferFrame.decode($0) })
        guard case .error(_, let code, _, _) = refusal else {
            Issue.record("the answer is \(refusal), not an ERROR")
            return
        }
        #expect(code == HandoffError.Code.untrustedPeer.rawValue)
    }

    @Test func frameKindsOnlyASourceSendsAndPairingOutsidePairingModeDropTheWriter() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether, configure: Self.quick)
        _ = try await offer(UserActivity(activityType: noteType), from: source, to: receiver)
        let frames: [[UInt8]] = [
            // A zero-context ERROR, as the live attack writes.
            [WireProtocol.version, 0x83] + [UInt8](repeating: 0, count: 8) + [0x12, 0x01],
            // A pairing message to a device that is not in pairing mode.
            TransferFrame.pair(session: strangerNonce, index: 0, count: 1, chunk: [1, 2, 3], fromServer: false).encoded(),
        ]
        for (index, frame) in frames.enumerated() {
            let stranger = try await ether.makeRadio(address: "sim:eve\(index)").connect(to: source.radio.address)
            try await stranger.write(frame)
            _ = try await untilDropped(stranger)
            #expect(await ether.statistics.droppedCentrals == index + 1)
        }
    }

    @Test func pairedDevicesKeepTheirLinksThroughContinuesAndShares() async throws {
        let ether = InMemoryEther()
        let (senders, receiver, inbox) = try await Gate25.sharing(on: ether)
        let blob = Gate25.pattern(30_000)
        try await senders[0].engine.push(OutgoingShare(
            metadata: ShareMetadata(kind: .file, name: "b.bin", mediaType: "application/octet-stream"),
            content: .bytes(blob)), to: receiver.store.identity.id)
        #expect(inbox.items().count == 1)
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["n": 1]
        let remote = try await offer(activity, from: receiver, to: senders[0])
        let outcome = await senders[0].engine.continueActivity(remote)
        #expect(outcome.error == nil, "\(outcome)")
        #expect(await ether.statistics.droppedCentrals == 0)
    }
}
