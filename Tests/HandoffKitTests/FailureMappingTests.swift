import Foundation
@testable import HandoffKit
import HandoffTesting
import XCTest

/// Each failure reaches `didFailToContinue` with the right code and the right activity type.
final class FailureMappingTests: XCTestCase {
    /// Engines stop when released; keep every device of a test alive until it ends.
    private var keepAlive: [SimulatedDevice] = []

    private func assertFailure(_ outcome: ContinuationOutcome, _ code: HandoffError.Code, type: String = noteType,
                               delegate: RecordingContinuationDelegate, file: StaticString = #filePath,
                               line: UInt = #line) {
        guard let error = outcome.error else {
            return XCTFail("expected \(code), got \(outcome)", file: file, line: line)
        }
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        XCTAssertEqual(error.activityType, type, file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
        let failures = delegate.failures
        XCTAssertEqual(failures.count, 1, file: file, line: line)
        XCTAssertEqual(failures.first?.activityType, type, file: file, line: line)
        XCTAssertEqual(failures.first?.error.code, code, file: file, line: line)
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

    func testRevokedReceiverGetsUntrustedPeer() async throws {
        let (source, receiver, ether, _, remote) = try await offered()
        var store = await source.engine.trust
        _ = try store.revoke(receiver.store.identity.id)
        try await source.engine.updateTrust(store)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .untrustedPeer, delegate: receiver.delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4612)
        let stats = await ether.statistics
        XCTAssertLessThan(stats.notifiedBytes, 100, "an untrusted requester received payload bytes")
    }

    func testTooLargeForTheReceiverFailsBeforeFetching() async throws {
        let (_, receiver, ether, _, remote) = try await offered(receiver: { $0.maximumPayloadSize = 10_000 })
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .userInfoTooLarge, delegate: receiver.delegate)
        let stats = await ether.statistics
        XCTAssertLessThan(stats.notifiedBytes, 200, "payload bytes moved before the size check")
    }

    func testGrowingPastTheLimitInWillSaveFailsWithUserInfoTooLarge() async throws {
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
        XCTAssertEqual(delegate.willSaveCount, 1)
    }

    func testUndeclaredTypeIsReportedWithItsName() async throws {
        let (_, receiver, ether, _, remote) = try await offered(receiver: {
            $0.declaredTypes = try! DeclaredActivityTypes([otherType])
        })
        XCTAssertNil(remote.activityType, "the receiver cannot name a type it did not declare from the beacon")
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .undeclaredActivityType, delegate: receiver.delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4613)
        let stats = await ether.statistics
        XCTAssertLessThan(stats.notifiedBytes, 200, "payload bytes moved for an undeclared type")
    }

    func testSilentSourceTimesOut() async throws {
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
        XCTAssertEqual(outcome.error?.code.rawValue, 4610)
        // It gave up only after `maximumStalls` + 1 stall windows without progress, not before.
        XCTAssertGreaterThanOrEqual(clock.now.offset, configuration.stallInterval * (configuration.maximumStalls + 1))
    }

    func testPeerGoneMidTransferIsConnectionUnavailable() async throws {
        let (_, receiver, ether, _, remote) = try await offered()
        var conditions = LinkConditions()
        conditions.disconnectAfterNotifications = 20
        conditions.vanishOnDisconnect = true
        await ether.setConditions(conditions)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .connectionUnavailable, delegate: receiver.delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4609)
    }

    func testUnreachableSourceIsConnectionUnavailable() async throws {
        let (source, receiver, ether, _, remote) = try await offered()
        await ether.setReachable(source.radio.address, false)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .connectionUnavailable, delegate: receiver.delegate)
    }

    func testTamperedChunkIsCorruptPayload() async throws {
        let (outcome, delegate) = try await continueTampered { frame in
            // Flip one bit in the bytes of data frames past the metadata record.
            guard frame.count > 20, frame[1] == 0x82, frame[13] > 0 || frame[12] > 0 else { return frame }
            var copy = frame
            copy[frame.count - 1] ^= 0x01
            return copy
        }
        assertFailure(outcome, .corruptPayload, delegate: delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4615)
    }

    func testTamperedHeaderIsCorruptPayload() async throws {
        let (outcome, delegate) = try await continueTampered { frame in
            guard frame.count > 2, frame[1] == 0x81 else { return frame }
            var copy = frame
            copy[frame.count - 1] ^= 0x01   // the record size
            return copy
        }
        assertFailure(outcome, .corruptPayload, delegate: delegate)
    }

    /// A source of another version: its frames are dropped at the gate, and the transfer's own timeout says why.
    func testVersionMismatchIsReported() async throws {
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
        XCTAssertEqual(outcome.error?.code.rawValue, 4614)
    }

    func testResignedActivityIsHandoffFailed() async throws {
        let (source, receiver, _, activity, remote) = try await offered()
        await activity.resignCurrent(in: source.engine)
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .handoffFailed, delegate: receiver.delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4608)
    }

    func testMissingRequiredKeyIsRefusedOnTheSource() async throws {
        let (_, receiver, _, _, remote) = try await offered { $0.requiredUserInfoKeys = ["title"] }
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .invalidActivity, delegate: receiver.delegate)
    }

    func testExpiredActivityIsNotContinued() async throws {
        let (source, receiver, _, activity, remote) = try await offered()
        activity.expirationDate = Date(timeIntervalSinceNow: -1)
        _ = source
        let outcome = await receiver.engine.continueActivity(remote)
        XCTAssertNotNil(outcome.error)
        XCTAssertEqual(receiver.delegate.failures.first?.activityType, noteType)
    }

    func testAnActivityThatExpiresWhileOfferedIsNotContinued() async throws {
        let clock = VirtualClock()
        let (_, receiver, _, _, remote) = try await offered({ $0.expirationDate = clock.date.addingTimeInterval(60) },
                                                            ether: InMemoryEther(clock: clock))
        clock.advance(by: .seconds(61))
        let outcome = await receiver.engine.continueActivity(remote)
        assertFailure(outcome, .activityExpired, delegate: receiver.delegate)
        XCTAssertEqual(outcome.error?.code.rawValue, 4616)
    }

    func testWillContinueFalseMovesNoPayload() async throws {
        let (_, receiver, ether, _, remote) = try await offered()
        receiver.delegate.accept(only: [otherType])
        let before = await ether.statistics
        let outcome = await receiver.engine.continueActivity(remote)
        guard case .declined(let type) = outcome else { return XCTFail("expected declined, got \(outcome)") }
        XCTAssertEqual(type, noteType)
        let after = await ether.statistics
        XCTAssertEqual(after.connections, before.connections, "declining connected anyway")
        XCTAssertTrue(receiver.delegate.failures.isEmpty)
        guard case .willContinue(noteType)? = receiver.delegate.calls.first else {
            return XCTFail("willContinue was not asked first")
        }
    }

    func testUndeclaredTypeAtBecomeCurrentThrows4613() async throws {
        let (source, receiver, _) = try await makePair()
        keepAlive += [source, receiver]
        let activity = UserActivity(activityType: "org.example.undeclared")
        do {
            try await activity.becomeCurrent(in: source.engine)
            XCTFail("an undeclared type became current")
        } catch {
            XCTAssertEqual(error.code, .undeclaredActivityType)
            XCTAssertEqual(error.activityType, "org.example.undeclared")
            XCTAssertTrue(error.description.contains("4613"), error.description)
        }
    }
}
