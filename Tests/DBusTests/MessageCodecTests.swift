import DBus
import XCTest

/// Marshalling through in-memory libdbus messages, without a bus.
final class MessageCodecTests: XCTestCase {
    private func roundTrip(_ values: [Value]) throws -> [Value] {
        let message = try Message.methodCall(
            destination: "org.handoff.Test", path: "/org/handoff/test", interface: "org.handoff.Test",
            member: "M", arguments: values)
        XCTAssertEqual(message.signatureText, Signature(types: values.map(\.type)).rawValue)
        return try message.arguments()
    }

    func testValuesSurviveAnInMemoryMessage() throws {
        let values: [Value] = [
            .byte(1), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7),
            .double(8.5), .string("nine"), .objectPath("/ten"), .signature("a(sv)"),
            .variant(Variant(.array(.string, [.string("a"), .string("b")]))),
            .dictionary(
                key: .string, value: .variant,
                [DictionaryEntry(key: .string("k"), value: .variant(Variant(.structure([.int32(1), .bytes([2])]))))]),
            .bytes([]), .array(.objectPath, []),
        ]
        XCTAssertEqual(try roundTrip(values), values)
    }

    func testHeadersAreReadable() throws {
        let message = try Message.methodCall(
            destination: "org.handoff.Test", path: "/org/handoff/test", interface: "org.handoff.Test.I",
            member: "Go")
        XCTAssertEqual(message.kind, .methodCall)
        XCTAssertEqual(message.destination, "org.handoff.Test")
        XCTAssertEqual(message.path, "/org/handoff/test")
        XCTAssertEqual(message.interface, "org.handoff.Test.I")
        XCTAssertEqual(message.member, "Go")
        XCTAssertEqual(try message.arguments(), [])
        let signal = try Message.signal(path: "/a", interface: "org.handoff.S", member: "Happened")
        XCTAssertEqual(signal.kind, .signal)
    }

    func testNestingBeyondTheLimitIsAnError() {
        var value = Value.int32(0)
        for _ in 0..<70 { value = .variant(Variant(value)) }
        XCTAssertThrowsError(try roundTrip([value])) { error in
            XCTAssertEqual((error as? DBusError)?.code, .invalidValue)
        }
    }

    func testFileDescriptorsAreDuplicatedIntoTheMessage() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let readEnd = UnixFileDescriptor(takingOwnershipOf: ends[0])
        let writeEnd = UnixFileDescriptor(takingOwnershipOf: ends[1])
        let decoded = try roundTrip([.unixFD(writeEnd)])
        guard case .unixFD(let copy) = decoded.first else { return XCTFail("no fd in \(decoded)") }
        XCTAssertNotEqual(copy.rawValue, writeEnd.rawValue)
        XCTAssertEqual(write(copy.rawValue, "x", 1), 1)
        var byte: UInt8 = 0
        XCTAssertEqual(read(readEnd.rawValue, &byte, 1), 1)
        XCTAssertEqual(byte, UInt8(ascii: "x"))
    }
}
