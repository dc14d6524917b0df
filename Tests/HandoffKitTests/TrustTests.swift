import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

@Suite struct TrustTests {
    @Test func pairingShowsTheSameSixDigitCodeAndSharesTheGroup() throws {
        let mac = try TrustStore.create(deviceName: "mac")
        let pc = try TrustStore.create(deviceName: "pc")
        var initiator = try PairingInitiator(store: pc)
        var responder = try PairingResponder(store: mac)
        let commit = try responder.receiveHello(initiator.hello())
        let reveal = try responder.receiveNonce(try initiator.receiveCommit(commit))
        #expect(initiator.confirmationCode == nil)
        let code = try initiator.receiveReveal(reveal)
        #expect(code == responder.confirmationCode)
        #expect(code.count == 6)
        #expect(code.allSatisfy { $0.isNumber })
        let (finish, newMac) = try responder.receiveConfirm(try initiator.confirm())
        let newPC = try initiator.receiveFinish(finish)
        #expect(newMac.group == newPC.group)
        #expect(newMac.group == mac.group, "the lone initiator joins the responder's group")
        #expect(newMac.devices.map(\.name) == ["pc"])
        #expect(newPC.devices.map(\.name) == ["mac"])
        #expect(newPC.devices.first?.publicKey == mac.identity.publicKey)
        _ = try newMac.validate()
        _ = try newPC.validate()
    }

    @Test func manInTheMiddleGetsDifferentCodesOnTheTwoScreens() throws {
        let victimA = try TrustStore.create(deviceName: "a")
        let victimB = try TrustStore.create(deviceName: "b")
        let mallory = try TrustStore.create(deviceName: "m")
        var a = try PairingInitiator(store: victimA)          // talks to Mallory's responder
        var mResponder = try PairingResponder(store: mallory)
        var mInitiator = try PairingInitiator(store: mallory) // talks to B
        var b = try PairingResponder(store: victimB)
        let codeA = try a.receiveReveal(try mResponder.receiveNonce(try a.receiveCommit(try mResponder.receiveHello(a.hello()))))
        let codeB = try mInitiator.receiveReveal(try b.receiveNonce(try mInitiator.receiveCommit(try b.receiveHello(mInitiator.hello()))))
        #expect(codeA != codeB, "1 in a million: rerun; otherwise the code does not bind the keys")
        _ = (mResponder.confirmationCode, b.confirmationCode)
    }

    @Test func brokenCommitmentAndTamperedOffersFailPairing() throws {
        var initiator = try PairingInitiator(store: try TrustStore.create(deviceName: "i"))
        var responder = try PairingResponder(store: try TrustStore.create(deviceName: "r"))
        var commit = try responder.receiveHello(initiator.hello())
        commit[commit.count - 1] ^= 1
        var reveal = try responder.receiveNonce(try initiator.receiveCommit(commit))
        if let error = #expect(throws: (any Error).self, performing: { try initiator.receiveReveal(reveal) }) { #expect((error as? HandoffError)?.code == .pairingFailed) }

        var i2 = try PairingInitiator(store: try TrustStore.create(deviceName: "i"))
        var r2 = try PairingResponder(store: try TrustStore.create(deviceName: "r"))
        reveal = try r2.receiveNonce(try i2.receiveCommit(try r2.receiveHello(i2.hello())))
        _ = try i2.receiveReveal(reveal)
        var confirm = try i2.confirm()
        confirm[confirm.count - 3] ^= 0x40
        if let error = #expect(throws: (any Error).self, performing: { try r2.receiveConfirm(confirm) }) { #expect((error as? HandoffError)?.code == .pairingFailed) }
        #expect(throws: (any Error).self, "an echo of our own offer was accepted") {
            try i2.receiveFinish(try i2.confirm())
        }
    }

    @Test func devicesInTwoDifferentGroupsCannotPair() throws {
        let groupOne = try HandoffFixtures.pairedStores(["a", "b"])
        let groupTwo = try HandoffFixtures.pairedStores(["c", "d"])
        if let error = #expect(throws: (any Error).self, performing: {
            try HandoffFixtures.pair(groupOne[0], groupTwo[0])
        }) {
            #expect((error as? HandoffError)?.code == .pairingFailed)
        }
    }

    @Test func threeDevicesShareOneGroup() throws {
        let stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        #expect(Set(stores.map(\.group.key)).count == 1)
        for store in stores { #expect(store.devices.count == 2) }
    }

    @Test func revocationRekeysTheRemainingDevicesAndLocksOutTheRevoked() throws {
        var stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        let revoked = stores[2]
        let messages = try stores[0].revoke(revoked.identity.id)
        #expect(messages.map(\.to) == [stores[1].identity.id])
        #expect(stores[0].group.epoch == revoked.group.epoch + 1)
        #expect(stores[0].group.key != revoked.group.key)
        try stores[1].applyRekey(messages[0])
        #expect(stores[1].group == stores[0].group)
        #expect(!(stores[1].devices.contains { $0.id == revoked.identity.id }))
        #expect(throws: (any Error).self, "a replayed rekey was applied") { try stores[1].applyRekey(messages[0]) }

        // The revoked device can neither read nor forge beacons any more.
        let aCodec = BeaconCodec(group: stores[0].group, devices: [stores[1].identity.id, revoked.identity.id])
        let oldCodec = BeaconCodec(group: revoked.group, devices: [stores[0].identity.id, revoked.identity.id])
        let fresh = aCodec.seal(device: stores[0].identity.id, typeTag: [1, 2, 3, 4], sequence: 5)
        #expect(oldCodec.open(fresh) == nil)
        #expect(aCodec.open(oldCodec.seal(device: revoked.identity.id, typeTag: [1, 2, 3, 4], sequence: 6)) == nil)
    }

    @Test func rekeyFromAStrangerOrTamperedIsRefused() throws {
        var stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        var messages = try stores[0].revoke(stores[2].identity.id)
        var stranger = try TrustStore.create(deviceName: "s")
        #expect(throws: (any Error).self) { try stranger.applyRekey(messages[0]) }
        let target = stores[1].identity.id
        let bad = RekeyMessage(from: messages[0].from, to: target, epoch: messages[0].epoch, revoked: messages[0].revoked,
                               nonce: messages[0].nonce, sealedKey: Data(messages[0].sealedKey.reversed()))
        if let error = #expect(throws: (any Error).self, performing: { try stores[1].applyRekey(bad) }) { #expect((error as? HandoffError)?.code == .corruptPayload) }
        messages = []
    }

    @Test func trustStoreRoundTripsThroughJSONAndRejectsGarbage() throws {
        let store = try HandoffFixtures.pairedStores(["a", "b"])[0]
        let data = try store.encoded()
        #expect(try TrustStore.load(from: data) == store)
        if let error = #expect(throws: (any Error).self, performing: { try TrustStore.load(from: Data("{}".utf8)) }) {
            #expect((error as? HandoffError)?.code == .invalidTrustState)
        }
        var json = try #require(String(data: data, encoding: .utf8))
        json = json.replacingOccurrences(of: "\"epoch\" : 1", with: "\"epoch\" : \"x\"")
        #expect(throws: (any Error).self) { try TrustStore.load(from: Data(json.utf8)) }
    }

    @Test func engineAcceptsNewTrustAfterPairing() async throws {
        let ether = InMemoryEther()
        var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
        configuration.beaconRotationInterval = nil
        configuration.stallInterval = .milliseconds(200)
        let macStore = try TrustStore.create(deviceName: "mac")
        let pcStore = try TrustStore.create(deviceName: "pc")
        let mac = try HandoffEngine(configuration: configuration, trust: macStore, radio: ether.makeRadio(address: "sim:mac"))
        let pcDelegate = RecordingContinuationDelegate()
        let pc = try HandoffEngine(configuration: configuration, trust: pcStore, radio: ether.makeRadio(address: "sim:pc"),
                                   delegate: pcDelegate)
        try await mac.start()
        try await pc.start()
        let (newPC, newMac) = try HandoffFixtures.pair(pcStore, macStore)
        try await mac.updateTrust(newMac)
        let updates = await pc.availabilityUpdates()
        let activity = UserActivity(activityType: noteType)
        try await activity.becomeCurrent(in: mac)
        try await pc.updateTrust(newPC)
        activity.title = "after pairing"
        let remote = try await first(updates)
        let outcome = await pc.continueActivity(remote)
        #expect(outcome.activity?.title == "after pairing")
    }
}
