import Foundation
@testable import HandoffKit
import HandoffTesting
import Testing

/// Decoders must never trap: thousands of seeded random and mutated inputs go through each of them.
/// A crash fails the whole run; a thrown error or nil is the expected answer for garbage.
/// `HANDOFF_FUZZ_SCALE=N` multiplies the number of inputs (a longer campaign); `HANDOFF_FUZZ_SEED` changes the seed.
@Suite final class DecoderPropertyTests {
    private var generator = SeededGenerator(seed: ProcessInfo.processInfo.environment["HANDOFF_FUZZ_SEED"]
        .flatMap { UInt64($0) } ?? 0x5EED_F00D)
    private let scale = max(1, ProcessInfo.processInfo.environment["HANDOFF_FUZZ_SCALE"].flatMap { Int($0) } ?? 1)

    private func random(maxLength: Int) -> [UInt8] {
        generator.bytes(Int.random(in: 0...maxLength, using: &generator))
    }

    /// A copy of `input` with a few random edits: bit flips, byte changes, truncation, insertion, duplication.
    private func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: bytes.indices, using: &generator)] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1 where !bytes.isEmpty:
                bytes[Int.random(in: bytes.indices, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            case 2 where !bytes.isEmpty:
                bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
            case 3:
                bytes.insert(UInt8.random(in: 0...255, using: &generator),
                             at: Int.random(in: 0...bytes.count, using: &generator))
            case 4 where !bytes.isEmpty:
                let i = Int.random(in: bytes.indices, using: &generator)
                bytes.insert(contentsOf: bytes[i...].prefix(8), at: i)
            default:
                bytes += generator.bytes(Int.random(in: 1...16, using: &generator))
            }
        }
        return bytes
    }

    @Test func transferFrameDecoderSurvivesArbitraryBytes() {
        let id = TransferID(bytes: [UInt8](repeating: 3, count: 8))!
        let nonce = Nonce(bytes: [UInt8](repeating: 1, count: 8))!
        let seeds: [[UInt8]] = [
            TransferFrame.request(sequence: 5, nonce: nonce, mac: Array(repeating: 2, count: 16)).encoded(),
            TransferFrame.fetch(transferID: id, from: 0, to: 100).encoded(),
            TransferFrame.done(transferID: id, mac: Array(repeating: 4, count: 16)).encoded(),
            TransferFrame.doneAsking(transferID: id, requests: 1, mac: Array(repeating: 4, count: 16)).encoded(),
            TransferFrame.open(TransferHeader(transferID: id, sequence: 1, metadataLength: 40,
                                              payloadLength: 9000, recordSize: 4096),
                               requestNonce: nonce).encoded(),
            TransferFrame.data(transferID: id, offset: 77, bytes: [1, 2, 3]).encoded(),
            TransferFrame.error(context: .zero, code: 4612, tag: [UInt8](repeating: 0, count: 16), message: "no").encoded(),
        ]
        var accepted = 0
        for round in 0..<(6000 * scale) {
            let input = round.isMultiple(of: 2) ? random(maxLength: 80) : mutate(seeds[round % seeds.count])
            if let frame = try? TransferFrame.decode(input) {
                accepted += 1
                if case .open(let header, _) = frame {
                    // Derived sizes of a decoded header never trap either.
                    _ = header.streamLength
                    for index in 0...min(header.recordCount, 3) { _ = header.range(ofRecord: index) }
                }
            }
        }
        #expect(accepted > 0, "the mutations never produced a valid frame; the test is too weak")
    }

    @Test func beaconOpenerSurvivesArbitraryBytes() throws {
        let group = try TrustGroup.generate()
        let device = UUID()
        let codec = BeaconCodec(group: group, devices: [device, UUID()])
        let valid = codec.seal(device: device, typeTag: [9, 9, 9, 9], sequence: 1)
        var forged = 0
        for round in 0..<(6000 * scale) {
            let input = round.isMultiple(of: 2) ? random(maxLength: 40) : mutate(valid)
            if let opened = codec.open(input), input != valid { forged += 1; Issue.record("accepted \(input) as \(opened)") }
        }
        #expect(forged == 0)
    }

    @Test func payloadDecoderSurvivesArbitraryAndMutatedPlists() throws {
        var snapshot = ActivitySnapshot(activityType: "org.handoff.note")
        snapshot.title = "t"
        snapshot.userInfo = ["a": [1, 2, ["b": "c"]], "d": .data(Data([1, 2, 3])), "u": .url(URL(string: "https://x.org")!)]
        snapshot.keywords = ["k"]
        let valid = [UInt8](try snapshot.encodedPayload())
        for round in 0..<(3000 * scale) {
            let input = round.isMultiple(of: 3) ? random(maxLength: 200) : mutate(valid)
            _ = try? ActivitySnapshot(payload: Data(input))
            _ = try? PlistValue.dictionary(fromPropertyList: Data(input))
        }
    }

    @Test func transferOpenerSurvivesArbitraryRecords() throws {
        let keys = GroupKeys(try TrustGroup.generate())
        let source = UUID()
        let (header, stream) = TransferSealer.seal(activityType: "org.handoff.note", payload: Data(count: 5000),
                                                   sequence: 3, recordSize: 1024, keys: keys, source: source)
        let opener = TransferSealer(header: header, keys: keys, source: source)
        let metadata = Array(stream[header.range(ofRecord: 0)])
        let record = Array(stream[header.range(ofRecord: 1)])
        for round in 0..<(3000 * scale) {
            let meta = round.isMultiple(of: 2) ? random(maxLength: 64) : mutate(metadata)
            #expect((meta == metadata ? nil : opener.openMetadata(meta)) == nil)
            let chunk = round.isMultiple(of: 2) ? random(maxLength: 1100) : mutate(record)
            #expect((chunk == record ? nil : opener.openRecord(1, chunk)) == nil)
        }
    }

    @Test func pairingAndTrustDecodersSurviveArbitraryBytes() throws {
        let store = try TrustStore.create(deviceName: "fuzz")
        let json = [UInt8](try store.encoded())
        let initiator = try PairingInitiator(store: store)
        var responder = try PairingResponder(store: try TrustStore.create(deviceName: "other"))
        let hello = initiator.hello()
        let commit = try responder.receiveHello(hello)
        for round in 0..<(2000 * scale) {
            var i = try PairingInitiator(store: store)
            var r = try PairingResponder(store: store)
            let garbage = round.isMultiple(of: 2) ? random(maxLength: 120) : mutate(round.isMultiple(of: 3) ? hello : commit)
            _ = try? i.receiveCommit(garbage)
            _ = try? i.receiveReveal(garbage)
            _ = try? i.receiveFinish(garbage)
            _ = try? r.receiveHello(garbage)
            _ = try? r.receiveNonce(garbage)
            _ = try? r.receiveConfirm(garbage)
            _ = try? TrustStore.load(from: Data(round.isMultiple(of: 2) ? random(maxLength: 300) : mutate(json)))
        }
    }

    @Test func engineSurvivesArbitraryWritesAndBeacons() async throws {
        let ether = InMemoryEther()
        let (source, receiver, _) = try await makePair(ether: ether)
        let activity = UserActivity(activityType: noteType)
        _ = try await offer(activity, from: source, to: receiver)
        let link = try await ether.makeRadio(address: "sim:fuzzer").connect(to: source.radio.address)
        let request = TransferFrame.request(sequence: 1, nonce: Nonce(bytes: [UInt8](repeating: 1, count: 8))!,
                                            mac: Array(repeating: 2, count: 16)).encoded()
        for round in 0..<(500 * scale) {
            try await link.write(round.isMultiple(of: 2) ? random(maxLength: 60) : mutate(request))
            await ether.inject(beacon: round.isMultiple(of: 2) ? random(maxLength: 30) : mutate([1] + random(maxLength: 23)),
                               from: PeerAddress("sim:fuzzer"))
        }
        await link.disconnect()
        // Both engines still work.
        activity.title = "still alive"
        let updates = await receiver.engine.availabilityUpdates()
        activity.title = "still alive 2"
        let remote = try await first(updates)
        let outcome = await receiver.engine.continueActivity(remote)
        #expect(outcome.activity != nil, "\(outcome)")
    }
}
