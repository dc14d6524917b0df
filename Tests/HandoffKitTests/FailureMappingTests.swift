import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

/// Each failure reaches `didFailToContinue` with the right code and the right activity type.
@Suite final class FailureMappingTests {
    /// Engines stop when released; keep every device of a test alive until it ends.
    private var keepAlive: [SimulatedDevice] = []

    private func assertFailure(_ outcome: ContinuationOutcome, _ code: HandoffError.Code, type: String = noteType,
                               delegate: RecordingContinuationDelegate, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = outcome.error else {
            Issue.record("expected \(code), got \(outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.activityType == type, sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        let failures = delegate.failures
        #expect(failures.count == 1, sourceLocation: sourceLocation)
        #expect(failures.first?.activityType == type, sourceLocation: sourceLocation)
        #expect(failures.first?.error.code == code, sourceLocation: sourceLocation)
    }

    /// Continues an offered note while `tamper` rewrites each notification the receiver gets.
    private func continueTampered(_ tamper: @escaping @Sendable ([UInt8]) -> [UInt8]?) async throws
        -> (ContinuationOutcome, RecordingContinuationDelegate) {
        let (_, receiver, ether, _, remote) = try await offered()
        await ether.setNotificationTamper(tamper)
        return (await receiver.engine.continueActivity(remote), receiver.delegate)
    }

    private func offered(_ setup: (UserActivity) -> Void = { _ in }, ether: InMemoryEther = InMemoryEther(),
                         receiver adjust: ((inout HandoffConfiguration) -> Void)? = nil) async throws
        -> (SimulatedDevice, SimulatedDevice, InMemoryEther, UserActivity, RemoteActivity) {
        let (source, receiver, ether) = try await makePair(ether: ether, receiver: adjust)
        keepAlive += [source, receiver]
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": .data(Data(count: 20_000))]
        setup(activity)
        let remote = try await offer(activity, from: source, to: receiver)
        return (source, receiver, ether, activity, remote)
    }

    @Test func revokedReceiverGetsUntrustedPeer() async throws {
        let (source, receiver, ether, _, remote) = try await offered()
        var store = await source.engine.trust
        _ = try store.revoke(receiver.store.identity.id)
        try await source.engine.updateTrust(store)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .untrustedPeer, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4612)
        let stats = await ether.statistics
        #expect(stats.notifiedBytes < 100, "an untrusted requester received payload bytes")
    }

    @Test func tooLargeForTheReceiverFailsBeforeFetching() async throws {
        let (_, receiver, ether, _, remote) = try await offered(receiver: { $0.maximumPayloadSize = 10_000 })
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .userInfoTooLarge, delegate: receiver.delegate)
        let stats = await ether.statistics
        #expect(stats.notifiedBytes < 200, "payload bytes moved before the size check")
    }

    @Test func growingPastTheLimitInWillSaveFailsWithUserInfoTooLarge() async throws {
        let (source, receiver, _) = try await makePair(configure: { $0.maximumPayloadSize = 30_000 })
        keepAlive += [source, receiver]
        let delegate = RecordingActivityDelegate { activity in
            activity.addUserInfoEntries(from: ["huge": .data(Data(count: 40_000))])
        }
        let activity = UserActivity(activityType: noteType)
        activity.delegate = delegate
        let remote = try await offer(activity, from: source, to: receiver)
        activity.needsSave = true
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .userInfoTooLarge, delegate: receiver.delegate)
        #expect(delegate.willSaveCount == 1)
    }

    @Test func undeclaredTypeIsReportedWithItsName() async throws {
        let (_, receiver, ether, _, remote) = try await offered(receiver: {
            $0.declaredTypes = try! DeclaredActivityTypes([otherType])
        })
        #expect(remote.activityType == nil, "the receiver cannot name a type it did not declare from the beacon")
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .undeclaredActivityType, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4613)
        let stats = await ether.statistics
        #expect(stats.notifiedBytes < 200, "payload bytes moved for an undeclared type")
    }

    @Test func silentSourceTimesOut() async throws {
        let clock = VirtualClock()
        let (_, receiver, ether, _, remote) = try await offered(ether: InMemoryEther(clock: clock))
        var conditions = LinkConditions()
        conditions.dropAllNotifications = true
        await ether.setConditions(conditions)
        let configuration = receiver.engine.configuration
        let outcome = try await onVirtualTime(clock, of: ether, step: configuration.stallInterval) {
            await receiver.engine.continueActivity(remote)
        }
        assertFailure(outcome, .remoteApplicationTimedOut, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4610)
        // It gave up only after `maximumStalls` + 1 stall windows without progress, not before.
        #expect(clock.now.offset >= configuration.stallInterval * (configuration.maximumStalls + 1))
    }

    /// A connect that never returns (the peer's bluetoothd stuck, its process stopped) used to hold the continue
    /// for ever, past the CLI's own timeout: the patience ends it with 4610, the app told once.
    @Test func sourceThatNeverAnswersTimesOutAfterThePatience() async throws {
        let clock = VirtualClock()
        let (_, receiver, ether, _, remote) = try await offered(ether: InMemoryEther(clock: clock))
        var conditions = LinkConditions()
        conditions.connectHangs = true
        await ether.setConditions(conditions)
        let started = clock.now
        let patience = receiver.engine.configuration.continuationPatience
        let outcome = try await onVirtualTime(clock, of: ether, step: .seconds(1)) {
            await receiver.engine.continueActivity(remote)
        }
        conditions.connectHangs = false   // lets the abandoned connect unwind
        await ether.setConditions(conditions)
        assertFailure(outcome, .remoteApplicationTimedOut, delegate: receiver.delegate)
        #expect(outcome.error?.message.contains("did not answer for \(patience.components.seconds) s") == true)
        let waited = started.duration(to: clock.now)
        #expect(waited >= patience && waited <= patience + .seconds(2), "gave up after \(waited)")
    }

    /// The patience bounds silence, not length: a source that keeps answering, slowly, is waited for past it.
    @Test func slowSourceThatKeepsAnsweringOutlastsThePatience() async throws {
        let clock = VirtualClock()
        let (_, receiver, ether, activity, remote) = try await offered(ether: InMemoryEther(clock: clock), receiver: {
            $0.continuationPatience = .seconds(2)
        })
        var conditions = LinkConditions()
        conditions.delay = .milliseconds(100)
        await ether.setConditions(conditions)
        let started = clock.now
        let outcome = try await onVirtualTime(clock, of: ether, step: .milliseconds(100), maximumSteps: 2_000,
                                              guardDelay: .seconds(60)) {
            await receiver.engine.continueActivity(remote)
        }
        guard case .continued(let continued, _, _) = outcome else {
            Issue.record("expected the activity, got \(outcome)")
            return
        }
        #expect(continued.userInfo == activity.userInfo)
        #expect(receiver.delegate.failures.isEmpty)
        let took = started.duration(to: clock.now)
        #expect(took > .seconds(4), "the transfer took \(took): too fast to show that the patience is not a deadline")
    }

    @Test func peerGoneMidTransferIsConnectionUnavailable() async throws {
        let (_, receiver, ether, _, remote) = try await offered()
        var conditions = LinkConditions()
        conditions.disconnectAfterNotifications = 20
        conditions.vanishOnDisconnect = true
        await ether.setConditions(conditions)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .connectionUnavailable, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4609)
    }

    @Test func unreachableSourceIsConnectionUnavailable() async throws {
        let (source, receiver, ether, _, remote) = try await offered()
        await ether.setReachable(source.radio.address, false)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .connectionUnavailable, delegate: receiver.delegate)
    }

    @Test func tamperedChunkIsCorruptPayload() async throws {
        let (outcome, delegate) = try await continueTampered { frame in
            // Flip one bit in the bytes of data frames past the metadata record.
            guard frame.count > 20, frame[1] == 0x82, frame[13] > 0 || frame[12] > 0 else { return frame }
            var copy = frame
            copy[frame.count - 1] ^= 0x01
            return copy
        }
        assertFailure(outcome, .corruptPayload, delegate: delegate)
        #expect(outcome.error?.code.rawValue == 4615)
    }

    @Test func tamperedHeaderIsCorruptPayload() async throws {
        let (outcome, delegate) = try await continueTampered { frame in
            guard frame.count > 2, frame[1] == 0x81 else { return frame }
            var copy = frame
            copy[frame.count - 1] ^= 0x01   // the record size
            return copy
        }
        assertFailure(outcome, .corruptPayload, delegate: delegate)
    }

    /// A source of another version: its frames are dropped at the gate, and the transfer's own timeout says why.
    @Test func versionMismatchIsReported() async throws {
        let clock = VirtualClock()
        let (_, receiver, ether, _, remote) = try await offered(ether: InMemoryEther(clock: clock))
        await ether.setNotificationTamper { frame in
            var copy = frame
            copy[0] = WireProtocol.version &+ 1
            return copy
        }
        let outcome = try await onVirtualTime(clock, of: ether, step: receiver.engine.configuration.stallInterval) {
            await receiver.engine.continueActivity(remote)
        }
        let delegate = receiver.delegate
        assertFailure(outcome, .protocolVersionMismatch, delegate: delegate)
        #expect(outcome.error?.code.rawValue == 4614)
    }

    @Test func resignedActivityIsHandoffFailed() async throws {
        let (source, receiver, _, activity, remote) = try await offered()
        await activity.resignCurrent(in: source.engine)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .handoffFailed, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4608)
    }

    @Test func missingRequiredKeyIsRefusedOnTheSource() async throws {
        let (_, receiver, _, _, remote) = try await offered { $0.requiredUserInfoKeys = ["title"] }
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .invalidActivity, delegate: receiver.delegate)
    }

    @Test func expiredActivityIsNotContinued() async throws {
        let (source, receiver, _, activity, remote) = try await offered()
        activity.expirationDate = Date(timeIntervalSinceNow: -1)
        _ = source
        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.error != nil)
        #expect(receiver.delegate.failures.first?.activityType == noteType)
    }

    @Test func anActivityThatExpiresWhileOfferedIsNotContinued() async throws {
        let clock = VirtualClock()
        let (_, receiver, _, _, remote) = try await offered({ $0.expirationDate = clock.date.addingTimeInterval(60) },
                                                            ether: InMemoryEther(clock: clock))
        clock.advance(by: .seconds(61))
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .activityExpired, delegate: receiver.delegate)
        #expect(outcome.error?.code.rawValue == 4616)
    }

    @Test func willContinueFalseMovesNoPayload() async throws {
        let (_, receiver, ether, _, remote) = try await offered()
        receiver.delegate.accept(only: [otherType])
        let before = await ether.statistics
        let outcome = await receiver.engine.continueActivity(remote)
        guard case .declined(let type) = outcome else {
            Issue.record("expected declined, got \(outcome)")
            return
        }
        #expect(type == noteType)
        let after = await ether.statistics
        #expect(after.connections == before.connections, "declining connected anyway")
        #expect(receiver.delegate.failures.isEmpty)
        guard case .willContinue(noteType)? = receiver.delegate.calls.first else {
            Issue.record("willContinue was not asked first")
            return
        }
    }

    @Test func undeclaredTypeAtBecomeCurrentThrows4613() async throws {
        let (source, receiver, _) = try await makePair()
        keepAlive += [source, receiver]
        let activity = UserActivity(activityType: "org.example.undeclared")
        do {
            try await activity.becomeCurrent(in: source.engine)
            Issue.record("an undeclared type became current")
        } catch {
            #expect(error.code == .undeclaredActivityType)
            #expect(error.activityType == "org.example.undeclared")
            #expect(error.description.contains("4613"), "\(error.description)")
        }
    }
}
