import Foundation
@testable import HandoffKit
import Testing

/// Fixed vectors for every MAC, tag and derived key HandoffKit makes with BLAKE2b: they go on the wire, so a change
/// to how they are computed must leave each byte as it is. The expected values are the code's output before those
/// computations had one home, each also computed from Docs/protocol.md's formulas with Python's hashlib (BLAKE2b)
/// and RFC 7748's X25519. The two identities are real X25519 key pairs, so both ends of a push derive the same keys.
struct MACVectorTests {
    private static let group = TrustGroup(key: Data(0..<32), epoch: 1)
    private static let laptop = DeviceIdentity(
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!, name: "laptop",
        publicKey: hex("4d27bcee3135c4944b28d27dd809b07be10c35160d20131caa7e85575498d07c"),
        secretKey: Data((0x11..<0x31).map { UInt8($0) }))
    private static let desktop = DeviceIdentity(
        id: UUID(uuidString: "00000000-0000-4000-8000-00000000000B")!, name: "desktop",
        publicKey: hex("86c15a1119201d2a9a6023aceeaf49664a54186ad2db465845331707b6da2b0d"),
        secretKey: Data((0x22..<0x42).map { UInt8($0) }))
    private static let transferID = TransferID(bytes: [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7])!
    private static let nonce = Nonce(bytes: [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7])!
    private static let challenge = [UInt8](repeating: 0xC3, count: 16)
    private static let header = TransferHeader(transferID: transferID, sequence: 0x0102_0304, metadataLength: 40,
                                               payloadLength: 5000, recordSize: 1024)

    private static func hex(_ text: String) -> Data {
        Data(stride(from: 0, to: text.count, by: 2).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return UInt8(text[start..<text.index(start, offsetBy: 2)], radix: 16) ?? 0
        })
    }

    private func hex(_ bytes: [UInt8]) -> String { ShareInbox.hexString(bytes) }

    @Test func groupKeys() {
        let keys = GroupKeys(Self.group)
        let beacon = keys.beaconKeys(for: Self.laptop.id)
        #expect(hex(beacon.encryption) == "85e7d26fb42b48fd557d6a6276bfb2d0509d2a272053c4c6aa029d80982d0682")
        #expect(hex(beacon.mac) == "f2f5a9920dcb70602c6c1689b2b24de51f97037d2793f1c6082e4fd5488dfd32")
        #expect(hex(keys.typeTag(for: "org.handoff.note")) == "62b33241")
        #expect(hex(keys.requestMAC(sequence: 0x0102_0304, nonce: Self.nonce)) == "06aa5f451b5581d9143c2f6f395a222f")
        #expect(hex(keys.proofMAC(nonce: Self.nonce, challenge: Self.challenge)) == "f9061d270a4ae3f2cb80d25b453908b8")
        #expect(hex(keys.errorTag(context: ErrorContext(Self.nonce), code: 4623, message: "the inbox is full")) == "3f0f14ef884098d92f29a18905436487")
        #expect(hex(keys.transferKey(source: Self.laptop.id, transferID: Self.transferID)) == "8e3f2efd2e5a95af34d8bb7b9efe5f1806919e262c5a1ec597ecd19118b09381")
        let sealer = TransferSealer(header: Self.header, keys: keys, source: Self.laptop.id)
        #expect(hex(sealer.doneMAC()) == "bdd8df678a1ee032ea334b28e18c6f8a")
        // A DONE that asks to pause the source: the same MAC over one byte more (worked out with Python's hashlib).
        #expect(hex(sealer.doneMAC(requests: ContinuationRequests.pauseSource.rawValue))
                    == "faac8686e5aaa664fd1d56ed45b4a3d0")
    }

    @Test func shareKeysAreTheSameAtBothEnds() throws {
        let sending = try #require(ShareKeys(store: TrustStore(identity: Self.laptop, group: Self.group,
                                                                devices: [Self.desktop.asTrustedDevice]),
                                             peer: Self.desktop.asTrustedDevice, sending: true))
        let receiving = try #require(ShareKeys(store: TrustStore(identity: Self.desktop, group: Self.group,
                                                                  devices: [Self.laptop.asTrustedDevice]),
                                               peer: Self.laptop.asTrustedDevice, sending: false))
        for keys in [sending, receiving] {
            #expect(hex(keys.pushKey.key) == "2e0472f120c1bb3a5e6f06e970d1a521df05edadd7684005390e8f4e2ed29969")
            #expect(hex(keys.transferKey(Self.transferID)) == "997824549ba9b8728de90f4718bdf45b583c58933e6ce88ec2f67ea1c7dc6013")
            #expect(hex(keys.pushMAC(transferID: Self.transferID, sender: Self.laptop.id, header: Self.header)) == "009dc2b420f7746911263cdae53d50d6")
            #expect(hex(keys.proofMAC(transferID: Self.transferID, challenge: Self.challenge)) == "c950474da3fbb0963768ce0f1c19ae55")
            #expect(hex(keys.errorTag(transferID: Self.transferID, code: 4622, message: "the inbox is full")) == "8709cd158ff54324bb6f25334454a413")
            #expect(hex(keys.doneMAC(Self.transferID)) == "96012c6824859d366270f562f13fda06")
        }
    }

    @Test func unkeyedDigests() {
        #expect(hex(Gate.echoTag(of: [0x01, 0x7F, 0x00])) == "763a3df863d8a825e35c00ca71f7eebb")
        var transcript = PairingTranscript()
        transcript.initiatorKey = Array(Self.laptop.publicKey)
        transcript.responderKey = Array(Self.desktop.publicKey)
        transcript.initiatorNonce = [UInt8](repeating: 0x1A, count: PairingTranscript.nonceLength)
        transcript.responderNonce = [UInt8](repeating: 0x2B, count: PairingTranscript.nonceLength)
        #expect(hex(PairingTranscript.commitment(responderKey: transcript.responderKey,
                                                 initiatorKey: transcript.initiatorKey,
                                                 responderNonce: transcript.responderNonce)) == "5b03959b5ce11b8b266865abdc5ff03d")
        #expect(hex(transcript.hash) == "c96d073cdaaaf567d918527b15b926d0c9d5a289b71d56d7cae83e320829df3b")
        #expect(transcript.confirmationCode == "365692")
    }
}
