import Foundation
import HandoffKit
import Testing

/// A stranger between two devices that pair (issue 14 §3, "a relay between two pairing devices"), at the level of
/// the pairing state machines: it sees, holds and rewrites every message, as a relay in radio range of both can.
struct PairingRelayTests {
    private let initiatorName = "laptop of Ω-relay-test"
    private let responderName = "desktop of Ω-relay-test"

    /// `needle` occurs somewhere in `haystack`.
    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    /// A relay that forwards every message unchanged pairs the two real devices with each other, and learns
    /// nothing it could use: neither name, nor the group key, nor any secret key is in the bytes it carried.
    @Test func aRelayThatForwardsEveryMessagePairsTheRealDevicesAndReadsNothing() throws {
        let initiatorStore = try TrustStore.create(deviceName: initiatorName)
        let responderStore = try TrustStore.create(deviceName: responderName)
        var initiator = try PairingInitiator(store: initiatorStore)
        var responder = try PairingResponder(store: responderStore)
        var carried: [[UInt8]] = []
        func relay(_ message: [UInt8]) -> [UInt8] {
            carried.append(message)
            return message
        }

        let commit = try responder.receiveHello(relay(initiator.hello()))
        let nonce = try initiator.receiveCommit(relay(commit))
        let reveal = try responder.receiveNonce(relay(nonce))
        let code = try initiator.receiveReveal(relay(reveal))
        #expect(code == responder.confirmationCode, "through a faithful relay both screens show the same code")
        let (finish, pairedResponder) = try responder.receiveConfirm(relay(try initiator.confirm()))
        let pairedInitiator = try initiator.receiveFinish(relay(finish))

        #expect(pairedInitiator.device(responderStore.identity.id)?.name == responderName)
        #expect(pairedResponder.device(initiatorStore.identity.id)?.name == initiatorName)
        #expect(pairedInitiator.group.key == pairedResponder.group.key)
        #expect(carried.count == 6)
        let secrets: [(String, [UInt8])] = [
            ("the initiator's name", Array(initiatorName.utf8)),
            ("the responder's name", Array(responderName.utf8)),
            ("the group key", [UInt8](pairedResponder.group.key)),
            ("the initiator's secret key", [UInt8](initiatorStore.identity.secretKey)),
            ("the responder's secret key", [UInt8](responderStore.identity.secretKey)),
        ]
        for (what, secret) in secrets {
            #expect(!carried.contains { contains($0, secret) }, "\(what) travelled readable through the relay")
        }
    }

    /// A relay that puts its own keys in the middle (a pairing with each device, messages rewritten) gets two
    /// pairings that agree on nothing: each device's screen shows a code the stranger chose no part of (it must
    /// commit to its nonce before it sees the device's, or see the device's commitment before it sends its own),
    /// so the two codes differ and the users, comparing them, answer no. The codes are random; a correct protocol
    /// fails this test once in a million runs, when the two happen to be equal.
    @Test func aRelayWithItsOwnKeysShowsTheTwoUsersDifferentCodes() throws {
        var initiator = try PairingInitiator(store: try TrustStore.create(deviceName: initiatorName))
        var responder = try PairingResponder(store: try TrustStore.create(deviceName: responderName))
        let strangerStore = try TrustStore.create(deviceName: "stranger")
        var towardsInitiator = try PairingResponder(store: strangerStore)   // the initiator pairs with this
        var towardsResponder = try PairingInitiator(store: strangerStore)   // the responder pairs with this

        // The best order for the stranger: it holds every message until it has seen as much as it can.
        let commitFromResponder = try responder.receiveHello(towardsResponder.hello())
        let commitToInitiator = try towardsInitiator.receiveHello(initiator.hello())
        let initiatorNonce = try initiator.receiveCommit(commitToInitiator)
        let strangerNonce = try towardsResponder.receiveCommit(commitFromResponder)
        let responderReveal = try responder.receiveNonce(strangerNonce)
        let strangerReveal = try towardsInitiator.receiveNonce(initiatorNonce)
        let initiatorCode = try initiator.receiveReveal(strangerReveal)
        let strangerCodeWithResponder = try towardsResponder.receiveReveal(responderReveal)

        // Each leg is a pairing of its own (the stranger knows both codes) ...
        #expect(initiatorCode == towardsInitiator.confirmationCode)
        #expect(responder.confirmationCode == strangerCodeWithResponder)
        // ... but the two real screens disagree.
        #expect(initiatorCode != responder.confirmationCode)
    }
}
