import Foundation
@testable import HandoffKit
import HandoffTesting
import XCTest

final class UserActivityTests: XCTestCase {
    func testPropertiesKeepWhatTheAppSets() {
        let activity = UserActivity(activityType: noteType)
        XCTAssertEqual(activity.activityType, noteType)
        XCTAssertTrue(activity.isEligibleForHandoff)
        XCTAssertFalse(activity.needsSave)
        XCTAssertTrue(activity.isValid)
        activity.title = "Note"
        activity.userInfo = ["title": "", "content": ""]
        activity.requiredUserInfoKeys = ["content"]
        activity.webpageURL = URL(string: "https://notes.example/7")
        activity.expirationDate = Date(timeIntervalSince1970: 2_000_000_000)
        activity.keywords = ["note"]
        activity.persistentIdentifier = "7"
        activity.targetContentIdentifier = "editor"
        activity.isEligibleForHandoff = false
        XCTAssertEqual(activity.title, "Note")
        XCTAssertEqual(activity.requiredUserInfoKeys, ["content"])
        XCTAssertEqual(activity.webpageURL?.host, "notes.example")
        XCTAssertEqual(activity.keywords, ["note"])
        XCTAssertEqual(activity.persistentIdentifier, "7")
        XCTAssertEqual(activity.targetContentIdentifier, "editor")
        XCTAssertFalse(activity.isEligibleForHandoff)
        XCTAssertNotNil(activity.expirationDate)
    }

    func testAddUserInfoEntriesMergesAndNewValuesWin() {
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["title": "old", "keep": 1]
        activity.addUserInfoEntries(from: ["title": "new", "link": .url(URL(string: "https://x.org")!)])
        XCTAssertEqual(activity.userInfo, ["title": "new", "keep": 1, "link": .url(URL(string: "https://x.org")!)])
    }

    func testNeedsSaveCallsWillSaveOnceAndClears() {
        let delegate = RecordingActivityDelegate { $0.addUserInfoEntries(from: ["saved": true]) }
        let activity = UserActivity(activityType: noteType)
        activity.delegate = delegate
        _ = activity.saveForSending()
        XCTAssertEqual(delegate.willSaveCount, 0, "willSave ran although nothing needed saving")
        activity.needsSave = true
        let saved = activity.saveForSending()
        XCTAssertEqual(saved.userInfo["saved"], true)
        XCTAssertEqual(delegate.willSaveCount, 1)
        XCTAssertFalse(activity.needsSave)
    }

    func testDelegateIsHeldWeakly() {
        let activity = UserActivity(activityType: noteType)
        do {
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            XCTAssertNotNil(activity.delegate)
        }
        XCTAssertNil(activity.delegate)
    }

    func testDeclaredTypesValidate() throws {
        XCTAssertNoThrow(try DeclaredActivityTypes(["org.handoff.note"]))
        for bad in ["", String(repeating: "x", count: 201), "bad\ntype"] {
            XCTAssertThrowsError(try DeclaredActivityTypes([bad])) {
                XCTAssertEqual(($0 as? HandoffError)?.code, .invalidActivity)
            }
        }
        let declared = try DeclaredActivityTypes([noteType])
        XCTAssertNoThrow(try declared.require(noteType))
        XCTAssertThrowsError(try declared.require("org.other")) { error in
            let e = error as? HandoffError
            XCTAssertEqual(e?.code, .undeclaredActivityType)
            XCTAssertEqual(e?.activityType, "org.other")
            XCTAssertTrue(e?.message.contains(noteType) ?? false, "the message should list the declared types")
        }
    }

    func testErrorCodesMatchAppleAndStayInItsRange() {
        XCTAssertEqual(HandoffError.Code.handoffFailed.rawValue, 4608)
        XCTAssertEqual(HandoffError.Code.connectionUnavailable.rawValue, 4609)
        XCTAssertEqual(HandoffError.Code.remoteApplicationTimedOut.rawValue, 4610)
        XCTAssertEqual(HandoffError.Code.userInfoTooLarge.rawValue, 4611)
        let ours: [HandoffError.Code] = [.untrustedPeer, .undeclaredActivityType, .protocolVersionMismatch, .corruptPayload,
                                          .activityExpired, .invalidActivity, .pairingFailed, .invalidTrustState,
                                          .cryptoUnavailable, .radioFailure]
        XCTAssertEqual(Set(ours.map(\.rawValue)).count, ours.count)
        for code in ours {
            XCTAssertTrue((4612...4863).contains(code.rawValue), "\(code) is outside Apple's range")
            XCTAssertFalse(code.name.hasPrefix("code "))
        }
        let error = HandoffError(.userInfoTooLarge, "too big", activityType: noteType)
        XCTAssertEqual(error.description, "[4611 userInfoTooLarge] org.handoff.note: too big")
    }

    func testChangingACurrentActivityReadvertisesButWillSaveChangesDoNot() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let delegate = RecordingActivityDelegate { $0.addUserInfoEntries(from: ["x": 1]) }
        let activity = UserActivity(activityType: noteType)
        activity.delegate = delegate
        let updates = await receiver.engine.availabilityUpdates()
        var iterator = updates.makeAsyncIterator()
        try await activity.becomeCurrent(in: source.engine)
        _ = await iterator.next()
        activity.needsSave = true
        let next = await iterator.next()
        let remote = try XCTUnwrap(next)
        let before = await ether.statistics.advertisements
        let outcome = await receiver.engine.continueActivity(remote)
        XCTAssertEqual(outcome.activity?.userInfo["x"], 1)
        let after = await ether.statistics.advertisements
        XCTAssertEqual(before, after, "saving for a send re-advertised the activity")
    }

    func testOnlyOneActivityIsCurrentAtATime() async throws {
        let (source, _, _) = try await makePair()
        let first = UserActivity(activityType: noteType)
        let second = UserActivity(activityType: otherType)
        try await first.becomeCurrent(in: source.engine)
        try await second.becomeCurrent(in: source.engine)
        let current = await source.engine.currentActivity
        XCTAssertTrue(current === second)
        await first.resignCurrent(in: source.engine)   // not current: no effect
        let still = await source.engine.currentActivity
        XCTAssertTrue(still === second)
    }
}
