import Foundation
@testable import HandoffKit
import HandoffTesting
import XCTest

final class TrustTests: XCTestCase {
    func testPairingShowsTheSameSixDigitCodeAndSharesTheGroup() throws {
        let mac = try TrustStore.create(deviceName: "mac")
        let pc = try TrustStore.create(deviceName: "pc")
        var initiator = try PairingInitiator(store: pc)
        var responder = try PairingResponder(store: mac)
        let commit = try responder.receiveHello(initiator.hello())
        let reveal = try responder.receiveNonce(try initiator.receiveCommit(commit))
        XCTAssertNil(initiator.confirmationCode)
        let code = try initiator.receiveReveal(reveal)
        XCTAssertEqual(code, responder.confirmationCode)
        XCTAssertEqual(code.count, 6)
        XCTAssertTrue(code.allSatisfy(\.isNumber))
        let (finish, newMac) = try responder.receiveConfirm(try initiator.confirm())
        let newPC = try initiator.receiveFinish(finish)
        XCTAssertEqual(newMac.group, newPC.group)
        XCTAssertEqual(newMac.group, mac.group, "the lone initiator joins the responder's group")
        XCTAssertEqual(newMac.devices.map(\.name), ["pc"])
        XCTAssertEqual(newPC.devices.map(\.name), ["mac"])
        XCTAssertEqual(newPC.devices.first?.publicKey, mac.identity.publicKey)
        XCTAssertNoThrow(try newMac.validate())
        XCTAssertNoThrow(try newPC.validate())
    }

    func testManInTheMiddleGetsDifferentCodesOnTheTwoScreens() throws {
        let victimA = try TrustStore.create(deviceName: "a")
        let victimB = try TrustStore.create(deviceName: "b")
        let mallory = try TrustStore.create(deviceName: "m")
        var a = try PairingInitiator(store: victimA)          // talks to Mallory's responder
        var mResponder = try PairingResponder(store: mallory)
        var mInitiator = try PairingInitiator(store: mallory) // talks to B
        var b = try PairingResponder(store: victimB)
        let codeA = try a.receiveReveal(try mResponder.receiveNonce(try a.receiveCommit(try mResponder.receiveHello(a.hello()))))
        let codeB = try mInitiator.receiveReveal(try b.receiveNonce(try mInitiator.receiveCommit(try b.receiveHello(mInitiator.hello()))))
        XCTAssertNotEqual(codeA, codeB, "1 in a million: rerun; otherwise the code does not bind the keys")
        _ = (mResponder.confirmationCode, b.confirmationCode)
    }

    func testBrokenCommitmentAndTamperedOffersFailPairing() throws {
        var initiator = try PairingInitiator(store: try TrustStore.create(deviceName: "i"))
        var responder = try PairingResponder(store: try TrustStore.create(deviceName: "r"))
        var commit = try responder.receiveHello(initiator.hello())
        commit[commit.count - 1] ^= 1
        var reveal = try responder.receiveNonce(try initiator.receiveCommit(commit))
        XCTAssertThrowsError(try initiator.receiveReveal(reveal)) { XCTAssertEqual(($0 as? HandoffError)?.code, .pairingFailed) }

        var i2 = try PairingInitiator(store: try TrustStore.create(deviceName: "i"))
        var r2 = try PairingResponder(store: try TrustStore.create(deviceName: "r"))
        reveal = try r2.receiveNonce(try i2.receiveCommit(try r2.receiveHello(i2.hello())))
        _ = try i2.receiveReveal(reveal)
        var confirm = try i2.confirm()
        confirm[confirm.count - 3] ^= 0x40
        XCTAssertThrowsError(try r2.receiveConfirm(confirm)) { XCTAssertEqual(($0 as? HandoffError)?.code, .pairingFailed) }
        XCTAssertThrowsError(try i2.receiveFinish(try i2.confirm()), "an echo of our own offer was accepted")
    }

    func testDevicesInTwoDifferentGroupsCannotPair() throws {
        let groupOne = try HandoffFixtures.pairedStores(["a", "b"])
        let groupTwo = try HandoffFixtures.pairedStores(["c", "d"])
        XCTAssertThrowsError(try HandoffFixtures.pair(groupOne[0], groupTwo[0])) {
            XCTAssertEqual(($0 as? HandoffError)?.code, .pairingFailed)
        }
    }

    func testThreeDevicesShareOneGroup() throws {
        let stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        XCTAssertEqual(Set(stores.map(\.group.key)).count, 1)
        for store in stores { XCTAssertEqual(store.devices.count, 2) }
    }

    func testRevocationRekeysTheRemainingDevicesAndLocksOutTheRevoked() throws {
        var stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        let revoked = stores[2]
        let messages = try stores[0].revoke(revoked.identity.id)
        XCTAssertEqual(messages.map(\.to), [stores[1].identity.id])
        XCTAssertEqual(stores[0].group.epoch, revoked.group.epoch + 1)
        XCTAssertNotEqual(stores[0].group.key, revoked.group.key)
        try stores[1].applyRekey(messages[0])
        XCTAssertEqual(stores[1].group, stores[0].group)
        XCTAssertFalse(stores[1].devices.contains { $0.id == revoked.identity.id })
        XCTAssertThrowsError(try stores[1].applyRekey(messages[0]), "a replayed rekey was applied")

        // The revoked device can neither read nor forge beacons any more.
        let aCodec = BeaconCodec(group: stores[0].group, devices: [stores[1].identity.id, revoked.identity.id])
        let oldCodec = BeaconCodec(group: revoked.group, devices: [stores[0].identity.id, revoked.identity.id])
        let fresh = aCodec.seal(device: stores[0].identity.id, typeTag: [1, 2, 3, 4], sequence: 5)
        XCTAssertNil(oldCodec.open(fresh))
        XCTAssertNil(aCodec.open(oldCodec.seal(device: revoked.identity.id, typeTag: [1, 2, 3, 4], sequence: 6)))
    }

    func testRekeyFromAStrangerOrTamperedIsRefused() throws {
        var stores = try HandoffFixtures.pairedStores(["a", "b", "c"])
        var messages = try stores[0].revoke(stores[2].identity.id)
        var stranger = try TrustStore.create(deviceName: "s")
        XCTAssertThrowsError(try stranger.applyRekey(messages[0]))
        let target = stores[1].identity.id
        let bad = RekeyMessage(from: messages[0].from, to: target, epoch: messages[0].epoch, revoked: messages[0].revoked,
                               nonce: messages[0].nonce, sealedKey: Data(messages[0].sealedKey.reversed()))
        XCTAssertThrowsError(try stores[1].applyRekey(bad)) { XCTAssertEqual(($0 as? HandoffError)?.code, .corruptPayload) }
        messages = []
    }

    func testTrustStoreRoundTripsThroughJSONAndRejectsGarbage() throws {
        let store = try HandoffFixtures.pairedStores(["a", "b"])[0]
        let data = try store.encoded()
        XCTAssertEqual(try TrustStore.load(from: data), store)
        XCTAssertThrowsError(try TrustStore.load(from: Data("{}".utf8))) {
            XCTAssertEqual(($0 as? HandoffError)?.code, .invalidTrustState)
        }
        var json = try XCTUnwrap(String(data: data, encoding: .utf8))
        json = json.replacingOccurrences(of: "\"epoch\" : 1", with: "\"epoch\" : \"x\"")
        XCTAssertThrowsError(try TrustStore.load(from: Data(json.utf8)))
    }

    func testEngineAcceptsNewTrustAfterPairing() async throws {
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
        XCTAssertEqual(outcome.activity?.title, "after pairing")
    }
}
