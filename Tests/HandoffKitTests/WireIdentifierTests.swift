import Foundation
import Testing
@testable import HandoffKit

@Suite struct WireIdentifierTests {
    @Test func idsTakeExactlyEightBytes() {
        for count in [0, 7, 9, 16] {
            #expect(TransferID(bytes: [UInt8](repeating: 1, count: count)) == nil)
            #expect(Nonce(bytes: [UInt8](repeating: 1, count: count)) == nil)
            #expect(ErrorContext(bytes: [UInt8](repeating: 1, count: count)) == nil)
        }
        let bytes: [UInt8] = [0x00, 0x01, 0x0a, 0x10, 0x7f, 0x80, 0xfe, 0xff]
        #expect(TransferID(bytes: bytes)?.bytes == bytes)
        #expect(Nonce(bytes: bytes[...])?.bytes == bytes)
        #expect(ErrorContext(bytes: bytes)?.bytes == bytes)
        #expect(TransferID.random().bytes.count == 8)
        #expect(Nonce.random().bytes.count == 8)
        #expect(TransferID.random() != TransferID.random())
        #expect(Nonce.random() != Nonce.random())
    }

    @Test func transferIDsSpellAsLowercaseHexAndParseBack() throws {
        let id = try #require(TransferID(bytes: [0x00, 0x01, 0x0a, 0x10, 0x7f, 0x80, 0xfe, 0xff]))
        #expect(id.description == "00010a107f80feff")
        #expect(TransferID(hex: "00010a107f80feff") == id)
        #expect(TransferID(hex: "00010A107F80FEFF") == id)
        #expect(TransferID(hex: "00010a107f80fe") == nil)
        #expect(TransferID(hex: "00010a107f80feff00") == nil)
        #expect(TransferID(hex: "00010a107f80fexx") == nil)
        let share = OutgoingShare(metadata: ShareMetadata(kind: .text, name: "a", mediaType: "text/plain"),
                                  content: .bytes([1]))
        #expect(share.wireTransferID?.description == share.transferID)
    }

    @Test func errorContextsCarryTheBytesTheyName() throws {
        let id = try #require(TransferID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let nonce = try #require(Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        #expect(ErrorContext.zero.bytes == [UInt8](repeating: 0, count: 8))
        #expect(TransferID.zero.bytes == [UInt8](repeating: 0, count: 8))
        #expect(ErrorContext(id).bytes == id.bytes)
        #expect(ErrorContext(nonce).bytes == nonce.bytes)
    }

    /// The typed ids change nothing on the wire: the frames lay out the bytes as Docs/protocol.md says.
    @Test func framesLayOutTheIdsAsBefore() throws {
        let v = WireProtocol.version
        let id = try #require(TransferID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let nonce = try #require(Nonce(bytes: [9, 10, 11, 12, 13, 14, 15, 16]))
        let mac = [UInt8](repeating: 0xAA, count: 16)
        let request = TransferFrame.request(sequence: 0x01020304, nonce: nonce, mac: mac)
        #expect(request.encoded() == [v, 0x01, 1, 2, 3, 4] + nonce.bytes + mac)
        #expect(TransferFrame.fetch(transferID: id, from: 5, to: 6).encoded()
                == [v, 0x02] + id.bytes + [0, 0, 0, 5, 0, 0, 0, 6])
        #expect(TransferFrame.done(transferID: id, mac: mac).encoded() == [v, 0x03] + id.bytes + mac)
        let asking = TransferFrame.doneAsking(transferID: id, requests: 1, mac: mac)
        #expect(asking.encoded() == [v, 0x03] + id.bytes + mac + [1])
        #expect(try TransferFrame.decode(asking.encoded()) == asking)
        // No requests is a plain DONE's job, and nothing may follow the byte.
        #expect(throws: (any Error).self) { try TransferFrame.decode([v, 0x03] + id.bytes + mac + [0]) }
        #expect(throws: (any Error).self) { try TransferFrame.decode([v, 0x03] + id.bytes + mac + [1, 0]) }
        #expect(TransferFrame.error(context: .zero, code: 0x1204, tag: mac, message: "no").encoded()
                == [v, 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x04] + mac + Array("no".utf8))
        #expect(TransferFrame.error(context: ErrorContext(nonce), code: 1, tag: mac, message: "").encoded()
                == [v, 0x83] + nonce.bytes + [0, 1] + mac)
        #expect(TransferFrame.rekeyApplied(session: nonce).encoded() == [v, 0xA1] + nonce.bytes)
        #expect(ShareFrame.accept(transferID: id, offset: 7).encoded() == [v, 0xB0] + id.bytes + [0, 0, 0, 7])
        let frames: [TransferFrame] = [request, .fetch(transferID: id, from: 5, to: 6),
                                       .error(context: ErrorContext(id), code: 2, tag: mac, message: "x")]
        for frame in frames {
            #expect(try TransferFrame.decode(frame.encoded()) == frame)
        }
        #expect(try ShareFrame.decode(ShareFrame.accept(transferID: id, offset: 7).encoded())
                == .accept(transferID: id, offset: 7))
    }

    /// The committed fuzz seeds (Fuzz/Corpus/frame) were written by the encoders before the ids were typed: every
    /// frame in them decodes and encodes back to the same bytes.
    @Test func theCommittedFrameSeedsEncodeByteForByte() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/frame")
        let seeds = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        #expect(!seeds.isEmpty)
        var frames = 0
        for seed in seeds {
            let bytes = [UInt8](try Data(contentsOf: seed))
            var index = 0
            while index < bytes.count {   // Fuzz.pieces: a length byte, then that many bytes
                let start = index + 1, end = min(start + Int(bytes[index]), bytes.count)
                let piece = Array(bytes[start..<end])
                index = end
                if LaneFrame.claims(piece) {
                    #expect(LaneFrame.decode(piece)?.encoded() == piece, "\(seed.lastPathComponent)")
                } else {
                    #expect(try TransferFrame.decode(piece).encoded() == piece, "\(seed.lastPathComponent)")
                }
                frames += 1
            }
        }
        #expect(frames >= 8)
    }
}
