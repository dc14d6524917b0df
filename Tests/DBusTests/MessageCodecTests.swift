import DBus
import Glibc
import Testing

/// Marshalling through in-memory libdbus messages, without a bus.
@Suite struct MessageCodecTests {
    private func roundTrip(_ values: [Value]) throws -> [Value] {
        let message = try Message.methodCall(
            destination: "org.handoff.Test", path: "/org/handoff/test", interface: "org.handoff.Test",
            member: "M", arguments: values)
        #expect(message.signatureText == Signature(types: values.map(\.type)).rawValue)
        return try message.arguments()
    }

    @Test func valuesSurviveAnInMemoryMessage() throws {
        let values: [Value] = [
            .byte(1), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5), .int64(-6), .uint64(7),
            .double(8.5), .string("nine"), .objectPath("/ten"), .signature("a(sv)"),
            .variant(Variant(.array(.string, [.string("a"), .string("b")]))),
            .dictionary(
                key: .string, value: .variant,
                [DictionaryEntry(key: .string("k"), value: .variant(Variant(.structure([.int32(1), .bytes([2])]))))]),
            .bytes([]), .array(.objectPath, []),
        ]
        #expect(try roundTrip(values) == values)
    }

    @Test func headersAreReadable() throws {
        let message = try Message.methodCall(
            destination: "org.handoff.Test", path: "/org/handoff/test", interface: "org.handoff.Test.I",
            member: "Go")
        #expect(message.kind == .methodCall)
        #expect(message.destination == "org.handoff.Test")
        #expect(message.path == "/org/handoff/test")
        #expect(message.interface == "org.handoff.Test.I")
        #expect(message.member == "Go")
        #expect(try message.arguments() == [])
        let signal = try Message.signal(path: "/a", interface: "org.handoff.S", member: "Happened")
        #expect(signal.kind == .signal)
    }

    @Test func nestingBeyondTheLimitIsAnError() {
        var value = Value.int32(0)
        for _ in 0..<70 { value = .variant(Variant(value)) }
        let error = #expect(throws: DBusError.self) { try roundTrip([value]) }
        #expect(error?.code == .invalidValue)
    }

    @Test func fileDescriptorsAreDuplicatedIntoTheMessage() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let readEnd = UnixFileDescriptor(takingOwnershipOf: ends[0])
        let writeEnd = UnixFileDescriptor(takingOwnershipOf: ends[1])
        let decoded = try roundTrip([.unixFD(writeEnd)])
        guard case .unixFD(let copy) = decoded.first else {
            Issue.record("no fd in \(decoded)")
            return
        }
        #expect(copy.rawValue != writeEnd.rawValue)
        #expect(write(copy.rawValue, "x", 1) == 1)
        var byte: UInt8 = 0
        #expect(read(readEnd.rawValue, &byte, 1) == 1)
        #expect(byte == UInt8(ascii: "x"))
    }
}
