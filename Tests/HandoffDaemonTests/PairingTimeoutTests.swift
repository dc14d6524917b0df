import Foundation
import HandoffClient
import HandoffDaemon
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// Pair through the daemon with nobody to pair with, on the daemon's virtual time: the call's timeout (120 s, what
/// `handoff pair` asks for) passes when the test says, and not a millisecond before.
@Suite(.serialized) struct PairingTimeoutTests {
    @Test func aPairingThatFindsNobodyFailsWhenItsTimeoutHasPassedAndNotBefore() async throws {
        let clock = VirtualClock()
        let machines = try await TwoMachines.make(pair: false, laptop: {
            $0.clock = clock
            $0.share.retryInterval = .seconds(3600)   // the outbox's periodic retry sleeps past the pairing's timeout
        })
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        // The call's end, once it has ended: nil inside when it paired, which it must not.
        let ended = Locked<ServiceError??>(nil)
        let pairing = Task {
            do {
                _ = try await laptop.pair { _ in true }
                ended.value = .some(nil)
            } catch {
                ended.value = .some(error as? ServiceError)
            }
        }
        defer { pairing.cancel() }
        // The pairing's timer sleeps once the call has reached the daemon.
        _ = try await eventually { clock.nextDeadline == HandoffInstant(offset: .seconds(120)) ? true : nil }
        clock.advance(by: .seconds(120) - .milliseconds(1))
        try await settle()
        #expect(clock.nextDeadline == HandoffInstant(offset: .seconds(120)), "the pairing ended before its timeout")
        clock.advance(by: .milliseconds(1))
        // Bounded in real time, so a timeout that never fires fails the test instead of hanging it.
        let failure = try #require(try await eventually { ended.value })
        #expect(failure.code == .pairingFailed, "\(failure)")
        #expect(failure.message.contains("no device paired within 120 s"), "\(failure.message)")
        #expect(try await laptop.devices().isEmpty)
    }
}
