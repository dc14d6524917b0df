import Foundation
import FuzzSupport
@testable import HandoffKit

/// Pairing messages, pairing offers and rekey messages: what a device that is pairing with us, or claims to be a
/// group member revoking another, sends.
///
/// First byte modulo 4 picks the path:
/// 0. the rest is a sequence of messages fed to fresh initiator and responder state machines at every step;
/// 1. the rest is a pairing offer's plaintext, sealed under a session key we hold and opened by the real
///    `PairingMessage.open`, which JSON-decodes and checks it (what an authenticated peer can send);
/// 2. the rest is a rekey message's JSON, decoded as the engine does before any authentication, then applied to
///    a trust store that trusts the sender, which must refuse it unless it authenticates;
/// 3. the rest is a sealed pairing message opened under the fixed key (forgeries must fail).
/// The two trust stores, kept as their JSON and decoded for each input: a `TrustStore` kept alive across inputs
/// is reported by LeakSanitizer (its `Data` keys; see FuzzSupport).
private let storesJSON: (mine: [UInt8], peer: [UInt8]) = {
    do {
        try Sodium.ensureInitialized()
        var mine = try TrustStore.create(deviceName: "fuzz")
        var peer = try TrustStore.create(deviceName: "peer")
        mine.adopt(group: mine.group, devices: [peer.identity.asTrustedDevice])
        peer.adopt(group: mine.group, devices: [mine.identity.asTrustedDevice])
        return ([UInt8](try mine.encoded()), [UInt8](try peer.encoded()))
    } catch {
        fatalError("cannot make the trust stores: \(error)")
    }
}()

private func stores() -> (mine: TrustStore, peer: TrustStore) {
    do {
        return (try TrustStore.load(from: Data(storesJSON.mine)), try TrustStore.load(from: Data(storesJSON.peer)))
    } catch {
        fatalError("cannot load the trust stores: \(error)")
    }
}
private let sessionKey = [UInt8](repeating: 0x24, count: 32)
private let transcript: PairingTranscript = {
    var t = PairingTranscript()
    t.initiatorKey = [UInt8](repeating: 1, count: 32)
    t.responderKey = [UInt8](repeating: 2, count: 32)
    t.initiatorNonce = [UInt8](repeating: 3, count: 16)
    t.responderNonce = [UInt8](repeating: 4, count: 16)
    return t
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPairing(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let stores = stores()
    switch mode % 4 {
    case 0:
        guard var initiator = try? PairingInitiator(store: stores.mine),
              var responder = try? PairingResponder(store: stores.mine) else { fatalError("cannot start pairing") }
        for message in Fuzz.pieces(rest) {
            _ = try? initiator.receiveCommit(message)
            _ = try? initiator.receiveReveal(message)
            _ = try? initiator.receiveFinish(message)
            _ = try? responder.receiveHello(message)
            _ = try? responder.receiveNonce(message)
            _ = try? responder.receiveConfirm(message)
        }
    case 1:
        let nonce = [UInt8](repeating: 9, count: Sodium.aeadNonceLength)
        let kind = PairingMessage.confirm
        let sealed = Sodium.seal(rest, additionalData: transcript.hash + [kind], nonce: nonce, key: sessionKey)
        _ = try? PairingMessage.open(PairingMessage.make(kind, nonce + sealed), key: sessionKey, transcript: transcript,
                                     kind: kind)
    case 2:
        guard let rekey = try? JSONDecoder().decode(RekeyMessage.self, from: Data(rest)) else { return 0 }
        var store = stores.mine
        if (try? store.applyRekey(rekey)) != nil, store.group == stores.mine.group {
            fatalError("a rekey applied without changing the group")
        }
    default:
        _ = try? PairingMessage.open(rest, key: sessionKey, transcript: transcript, kind: PairingMessage.confirm)
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = (storesJSON, transcript)
    Fuzz.writeSeedsIfAsked(try {
        let stores = stores()
        let initiator = try PairingInitiator(store: stores.mine)
        var responder = try PairingResponder(store: stores.peer)
        let commit = try responder.receiveHello(initiator.hello())
        let offer = PairingOffer(device: stores.peer.identity.asTrustedDevice, group: stores.peer.group,
                                 devices: stores.peer.devices)
        var revoker = stores.peer
        let rekeys = (try? revoker.revoke(Fuzz.uuid(9))) ?? []
        return [
            [0] + Fuzz.joined([initiator.hello(), commit]),
            [1] + [UInt8](try JSONEncoder().encode(offer)),
            [2] + [UInt8](try JSONEncoder().encode(rekeys.first ?? RekeyMessage(
                from: stores.peer.identity.id, to: stores.mine.identity.id, epoch: 2, revoked: Fuzz.uuid(9),
                nonce: Data(count: 24), sealedKey: Data(count: 48)))),
            [3] + (try PairingMessage.seal(offer, key: sessionKey, transcript: transcript, kind: PairingMessage.confirm)),
        ]
    }())
    return 0
}
