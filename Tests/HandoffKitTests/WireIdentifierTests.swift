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
    }

    func testErrorContextsCarryTheBytesTheyName() throws {
        let id = try XCTUnwrap(TransferID(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        let nonce = try XCTUnwrap(Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8]))
        XCTAssertEqual(ErrorContext.zero.bytes, [UInt8](repeating: 0, count: 8))
        XCTAssertEqual(TransferID.zero.bytes, [UInt8](repeating: 0, count: 8))
        XCTAssertEqual(ErrorContext(id).bytes, id.bytes)
        XCTAssertEqual(ErrorContext(nonce).bytes, nonce.bytes)
    }
}
