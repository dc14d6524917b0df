import CSodium
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
/// The key material is made once per process, as `[UInt8]` (a `Data` held by a global is reported by
/// LeakSanitizer; see FuzzSupport): the two devices' long-term keys and group key, from which the two trust stores
/// are assembled for each input (their memberwise initializers, no JSON: the stores are not what is fuzzed here),
/// and the state machines' ephemeral key pairs, handed to them through their internal initializers so no X25519
/// key is generated per input. What the input sends is still decoded and, when it is a well-formed public key,
/// agreed with as in production.
private struct Keys {
    var mine: (id: UUID, publicKey: [UInt8], secretKey: [UInt8])
    var peer: (id: UUID, publicKey: [UInt8], secretKey: [UInt8])
    var group: [UInt8]
    var initiator: (publicKey: [UInt8], secretKey: [UInt8])
    var responder: (publicKey: [UInt8], secretKey: [UInt8])
}

private let keys: Keys = {
    do {
        try Sodium.ensureInitialized()
    } catch {
        fatalError("cannot initialise libsodium: \(error)")
    }
    // From fixed seeds, so the same keys in every process: a seed made by `Fuzz/run.sh seeds` (a rekey sealed by
    // the peer, a commit answering the initiator) still authenticates in the next run.
    func pair(_ n: UInt8) -> (publicKey: [UInt8], secretKey: [UInt8]) {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_kx_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_kx_SECRETKEYBYTES))
        let seed = [UInt8](repeating: n, count: Int(crypto_kx_SEEDBYTES))
        guard crypto_kx_seed_keypair(&publicKey, &secretKey, seed) == 0 else { fatalError("crypto_kx_seed_keypair") }
        return (publicKey, secretKey)
    }
    let mine = pair(1), peer = pair(2)
    return Keys(mine: (Fuzz.uuid(1), mine.publicKey, mine.secretKey), peer: (Fuzz.uuid(2), peer.publicKey, peer.secretKey),
                group: [UInt8](repeating: 5, count: 32), initiator: pair(3), responder: pair(4))
}()

/// Two paired stores in one group of epoch 1, each trusting the other: what `TrustStore.create` and `adopt` make.
private func stores() -> (mine: TrustStore, peer: TrustStore) {
    let group = TrustGroup(key: Data(keys.group), epoch: 1)
    let mine = DeviceIdentity(id: keys.mine.id, name: "fuzz", publicKey: Data(keys.mine.publicKey),
                              secretKey: Data(keys.mine.secretKey))
    let peer = DeviceIdentity(id: keys.peer.id, name: "peer", publicKey: Data(keys.peer.publicKey),
                              secretKey: Data(keys.peer.secretKey))
    return (TrustStore(identity: mine, group: group, devices: [peer.asTrustedDevice]),
            TrustStore(identity: peer, group: group, devices: [mine.asTrustedDevice]))
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
    switch mode % 4 {
    case 0:
        let stores = stores()
        guard var initiator = try? PairingInitiator(store: stores.mine, clock: RealClock(), keyPair: keys.initiator),
              var responder = try? PairingResponder(store: stores.mine, clock: RealClock(), keyPair: keys.responder)
        else { fatalError("cannot start pairing") }
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
        let stores = stores()
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
    _ = (keys, transcript)
    Fuzz.writeSeedsIfAsked(try {
        let stores = stores()
        let initiator = try PairingInitiator(store: stores.mine, clock: RealClock(), keyPair: keys.initiator)
        var responder = try PairingResponder(store: stores.peer, clock: RealClock(), keyPair: keys.responder)
        let commit = try responder.receiveHello(initiator.hello())
        let offer = PairingOffer(device: stores.peer.identity.asTrustedDevice, group: stores.peer.group,
                                 devices: stores.peer.devices)
        // The peer revokes a third device: its rekey to us authenticates (the keys are the same in every run), so
        // the seed reaches the applied-rekey check.
        var revoker = stores.peer
        let third = TrustedDevice(id: Fuzz.uuid(9), name: "third", publicKey: Data(keys.initiator.publicKey),
                                  pairedAt: Date(timeIntervalSince1970: 0))
        revoker.adopt(group: revoker.group, devices: [third])
        let rekeys = try revoker.revoke(Fuzz.uuid(9)).filter { $0.to == stores.mine.identity.id }
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
