import Foundation
import XCTest
@testable import HandoffKit

final class WireIdentifierTests: XCTestCase {
    func testIdsTakeExactlyEightBytes() {
        for count in [0, 7, 9, 16] {
            XCTAssertNil(TransferID(bytes: [UInt8](repeating: 1, count: count)))
            XCTAssertNil(Nonce(bytes: [UInt8](repeating: 1, count: count)))
            XCTAssertNil(ErrorContext(bytes: [UInt8](repeating: 1, count: count)))
        }
        let bytes: [UInt8] = [0x00, 0x01, 0x0a, 0x10, 0x7f, 0x80, 0xfe, 0xff]
        XCTAssertEqual(TransferID(bytes: bytes)?.bytes, bytes)
        XCTAssertEqual(Nonce(bytes: bytes[...])?.bytes, bytes)
        XCTAssertEqual(ErrorContext(bytes: bytes)?.bytes, bytes)
        XCTAssertEqual(TransferID.random().bytes.count, 8)
        XCTAssertEqual(Nonce.random().bytes.count, 8)
        XCTAssertNotEqual(TransferID.random(), TransferID.random())
        XCTAssertNotEqual(Nonce.random(), Nonce.random())
    }

    func testTransferIDsSpellAsLowercaseHexAndParseBack() throws {
        let id = try XCTUnwrap(TransferID(bytes: [0x00, 0x01, 0x0a, 0x10, 0x7f, 0x80, 0xfe, 0xff]))
        XCTAssertEqual(id.description, "00010a107f80feff")
        XCTAssertEqual(TransferID(hex: "00010a107f80feff"), id)
        XCTAssertEqual(TransferID(hex: "00010A107F80FEFF"), id)
        XCTAssertNil(TransferID(hex: "00010a107f80fe"))
        XCTAssertNil(TransferID(hex: "00010a107f80feff00"))
        XCTAssertNil(TransferID(hex: "00010a107f80fexx"))
        let share = OutgoingShare(metadata: ShareMetadata(kind: .text, name: "a", mediaType: "text/plain"),
                                  content: .bytes([1]))
        XCTAssertEqual(share.wireTransferID?.description, share.transferID)
    }

    func testErrorContextsCarryTheBytesTheyName() throws {
        let id = try XCTUnwrap(TransferID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let nonce = try XCTUnwrap(Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertEqual(ErrorContext.zero.bytes, [UInt8](repeating: 0, count: 8))
        XCTAssertEqual(TransferID.zero.bytes, [UInt8](repeating: 0, count: 8))
        XCTAssertEqual(ErrorContext(id).bytes, id.bytes)
        XCTAssertEqual(ErrorContext(nonce).bytes, nonce.bytes)
    }

    /// The typed ids change nothing on the wire: the frames lay out the bytes as Docs/protocol.md says.
    func testFramesLayOutTheIdsAsBefore() throws {
        let v = WireProtocol.version
        let id = try XCTUnwrap(TransferID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let nonce = try XCTUnwrap(Nonce(bytes: [9, 10, 11, 12, 13, 14, 15, 16]))
        let mac = [UInt8](repeating: 0xAA, count: 16)
        let request = TransferFrame.request(sequence: 0x01020304, nonce: nonce, mac: mac)
        XCTAssertEqual(request.encoded(), [v, 0x01, 1, 2, 3, 4] + nonce.bytes + mac)
        XCTAssertEqual(TransferFrame.fetch(transferID: id, from: 5, to: 6).encoded(),
                       [v, 0x02] + id.bytes + [0, 0, 0, 5, 0, 0, 0, 6])
        XCTAssertEqual(TransferFrame.done(transferID: id, mac: mac).encoded(), [v, 0x03] + id.bytes + mac)
        let asking = TransferFrame.doneAsking(transferID: id, requests: 1, mac: mac)
        XCTAssertEqual(asking.encoded(), [v, 0x03] + id.bytes + mac + [1])
        XCTAssertEqual(try TransferFrame.decode(asking.encoded()), asking)
        // No requests is a plain DONE's job, and nothing may follow the byte.
        XCTAssertThrowsError(try TransferFrame.decode([v, 0x03] + id.bytes + mac + [0]))
        XCTAssertThrowsError(try TransferFrame.decode([v, 0x03] + id.bytes + mac + [1, 0]))
        XCTAssertEqual(TransferFrame.error(context: .zero, code: 0x1204, tag: mac, message: "no").encoded(),
                       [v, 0x83, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x04] + mac + Array("no".utf8))
        XCTAssertEqual(TransferFrame.error(context: ErrorContext(nonce), code: 1, tag: mac, message: "").encoded(),
                       [v, 0x83] + nonce.bytes + [0, 1] + mac)
        XCTAssertEqual(TransferFrame.rekeyApplied(session: nonce).encoded(), [v, 0xA1] + nonce.bytes)
        XCTAssertEqual(ShareFrame.accept(transferID: id, offset: 7).encoded(), [v, 0xB0] + id.bytes + [0, 0, 0, 7])
        let frames: [TransferFrame] = [request, .fetch(transferID: id, from: 5, to: 6),
                                       .error(context: ErrorContext(id), code: 2, tag: mac, message: "x")]
        for frame in frames {
            XCTAssertEqual(try TransferFrame.decode(frame.encoded()), frame)
        }
        XCTAssertEqual(try ShareFrame.decode(ShareFrame.accept(transferID: id, offset: 7).encoded()),
                       .accept(transferID: id, offset: 7))
    }

    /// The committed fuzz seeds (Fuzz/Corpus/frame) were written by the encoders before the ids were typed: every
    /// frame in them decodes and encodes back to the same bytes.
    func testTheCommittedFrameSeedsEncodeByteForByte() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/frame")
        let seeds = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        XCTAssertFalse(seeds.isEmpty)
        var frames = 0
        for seed in seeds {
            let bytes = [UInt8](try Data(contentsOf: seed))
            var index = 0
            while index < bytes.count {   // Fuzz.pieces: a length byte, then that many bytes
                let start = index + 1, end = min(start + Int(bytes[index]), bytes.count)
                let piece = Array(bytes[start..<end])
                index = end
                if LaneFrame.claims(piece) {
                    XCTAssertEqual(LaneFrame.decode(piece)?.encoded(), piece, "\(seed.lastPathComponent)")
                } else {
                    XCTAssertEqual(try TransferFrame.decode(piece).encoded(), piece, "\(seed.lastPathComponent)")
                }
                frames += 1
            }
        }
        XCTAssertGreaterThanOrEqual(frames, 8)
    }
}
