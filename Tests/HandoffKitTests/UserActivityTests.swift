import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

@Suite struct UserActivityTests {
    @Test func propertiesKeepWhatTheAppSets() {
        let activity = UserActivity(activityType: noteType)
        #expect(activity.activityType == noteType)
        #expect(activity.isEligibleForHandoff)
        #expect(!activity.needsSave)
        #expect(activity.isValid)
        activity.title = "Note"
        activity.userInfo = ["title": "", "content": ""]
        activity.requiredUserInfoKeys = ["content"]
        activity.webpageURL = URL(string: "https://notes.example/7")
        activity.expirationDate = Date(timeIntervalSince1970: 2_000_000_000)
        activity.keywords = ["note"]
        activity.persistentIdentifier = "7"
        activity.targetContentIdentifier = "editor"
        activity.isEligibleForHandoff = false
        #expect(activity.title == "Note")
        #expect(activity.requiredUserInfoKeys == ["content"])
        #expect(activity.webpageURL?.host == "notes.example")
        #expect(activity.keywords == ["note"])
        #expect(activity.persistentIdentifier == "7")
        #expect(activity.targetContentIdentifier == "editor")
        #expect(!activity.isEligibleForHandoff)
        #expect(activity.expirationDate != nil)
    }

    @Test func addUserInfoEntriesMergesAndNewValuesWin() {
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["title": "old", "keep": 1]
        activity.addUserInfoEntries(from: ["title": "new", "link": .url(URL(string: "https://x.org")!)])
        #expect(activity.userInfo == ["title": "new", "keep": 1, "link": .url(URL(string: "https://x.org")!)])
    }

    @Test func needsSaveCallsWillSaveOnceAndClears() {
        let delegate = RecordingActivityDelegate { $0.addUserInfoEntries(from: ["saved": true]) }
        let activity = UserActivity(activityType: noteType)
        activity.delegate = delegate
        _ = activity.saveForSending()
        #expect(delegate.willSaveCount == 0, "willSave ran although nothing needed saving")
        activity.needsSave = true
        let saved = activity.saveForSending()
        #expect(saved.userInfo["saved"] == true)
        #expect(delegate.willSaveCount == 1)
        #expect(!activity.needsSave)
    }

    @Test func delegateIsHeldWeakly() {
        let activity = UserActivity(activityType: noteType)
        do {
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            #expect(activity.delegate != nil)
        }
        #expect(activity.delegate == nil)
    }

    @Test func declaredTypesValidate() throws {
        _ = try DeclaredActivityTypes(["org.handoff.note"])
        for bad in ["", String(repeating: "x", count: 201), "bad\ntype"] {
            if let error = #expect(throws: (any Error).self, performing: { _ = try DeclaredActivityTypes([bad]) }) {
                #expect((error as? HandoffError)?.code == .invalidActivity)
            }
        }
        let declared = try DeclaredActivityTypes([noteType])
        try declared.require(noteType)
        if let error = #expect(throws: (any Error).self, performing: { try declared.require("org.other") }) {
            let e = error as? HandoffError
            #expect(e?.code == .undeclaredActivityType)
            #expect(e?.activityType == "org.other")
            #expect(e?.message.contains(noteType) ?? false, "the message should list the declared types")
        }
    }

    @Test func errorCodesMatchAppleAndStayInItsRange() {
        #expect(HandoffError.Code.handoffFailed.rawValue == 4608)
        #expect(HandoffError.Code.connectionUnavailable.rawValue == 4609)
        #expect(HandoffError.Code.remoteApplicationTimedOut.rawValue == 4610)
        #expect(HandoffError.Code.userInfoTooLarge.rawValue == 4611)
        let ours: [HandoffError.Code] = [.untrustedPeer, .undeclaredActivityType, .protocolVersionMismatch, .corruptPayload,
                                          .activityExpired, .invalidActivity, .pairingFailed, .invalidTrustState,
                                          .cryptoUnavailable, .radioFailure]
        #expect(Set(ours.map(\.rawValue)).count == ours.count)
        for code in ours {
            #expect((4612...4863).contains(code.rawValue), "\(code) is outside Apple's range")
            #expect(!(code.name.hasPrefix("code ")))
        }
        let error = HandoffError(.userInfoTooLarge, "too big", activityType: noteType)
        #expect(error.description == "[4611 userInfoTooLarge] org.handoff.note: too big")
    }

    @Test func changingACurrentActivityReadvertisesButWillSaveChangesDoNot() async throws {
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
        let remote = try #require(next)
        let before = await ether.statistics.advertisements
        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.activity?.userInfo["x"] == 1)
        let after = await ether.statistics.advertisements
        #expect(before == after, "saving for a send re-advertised the activity")
    }

    @Test func onlyOneActivityIsCurrentAtATime() async throws {
        let (source, _, _) = try await makePair()
        let first = UserActivity(activityType: noteType)
        let second = UserActivity(activityType: otherType)
        try await first.becomeCurrent(in: source.engine)
        try await second.becomeCurrent(in: source.engine)
        let current = await source.engine.currentActivity
        #expect(current === second)
        await first.resignCurrent(in: source.engine)   // not current: no effect
        let still = await source.engine.currentActivity
        #expect(still === second)
    }
}
