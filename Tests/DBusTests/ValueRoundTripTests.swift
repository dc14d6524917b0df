import DBus
import DBusTestSupport
import Foundation
import Testing

/// Every D-Bus type, sent to an echo service on a private bus and compared with what comes back.
@Suite final class ValueRoundTripTests {
    let bus = SharedBus()
    deinit { bus.stop() }

    private func echo(_ values: [Value], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Value] {
        try await self.bus.withServiceAndClient { service, client in
            let signature = Signature(types: values.map(\.type))
            try await service.export([Echo.make(signatures: [signature.rawValue])], at: Echo.path)
            return try await client.call(
                destination: service.uniqueName, path: Echo.path, interface: Echo.interface, member: "Echo0",
                arguments: values)
        }
    }

    @Test func everyBasicTypeRoundTrips() async throws {
        let values: [Value] = [
            .byte(0xFE), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535), .int32(-2_000_000_000),
            .uint32(4_000_000_000), .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300),
            .string("grüß dich ✓"), .string(""), .objectPath("/org/handoff/a_1"), .objectPath(.root),
            .signature("a{oa{sa{sv}}}"), .signature(.empty),
        ]
        let reply = try await echo(values)
        #expect(reply == values)
    }

    @Test func nestedContainersRoundTrip() async throws {
        let properties: [String: Variant] = [
            "Name": Variant("note"), "Size": Variant(UInt32(7)),
            "Nested": Variant(Variant(Variant([Int16(-1), 2]))),
            "Tree": Variant(["a": ["b": [ObjectPath("/x")]]] as [String: [String: [ObjectPath]]]),
        ]
        let managed: [ObjectPath: [String: [String: Variant]]] = [
            "/org/handoff/app/service0": [
                "org.bluez.GattService1": ["UUID": Variant("180d"), "Primary": Variant(true)]
            ],
            "/org/handoff/app": [:],
        ]
        let structure = Value.structure([
            .int32(1), .array(.structure([.string, .array(.int32)]), [.structure([.string("s"), .array(.int32, [])])]),
            .variant(Variant(.structure([.byte(1), .bytes([1, 2, 3])]))),
        ])
        let values: [Value] = [
            properties.dbusValue, managed.dbusValue, structure, .array(.string, []),
            .dictionary(key: .uint64, value: .array(.variant), []),
            .array(.array(.array(.byte)), [.array(.array(.byte), [.bytes([]), .bytes([9])])]),
        ]
        let reply = try await echo(values)
        #expect(reply.count == values.count)
        #expect(try [String: Variant](dbusValue: reply[0]) == properties)
        #expect(try [ObjectPath: [String: [String: Variant]]](dbusValue: reply[1]) == managed)
        #expect(reply[2] == structure)
        #expect(reply[3] == .array(.string, []))
        #expect(reply[4] == values[4])
        #expect(reply[5] == values[5])
    }

    @Test func variantsNestDeeply() async throws {
        var value = Value.string("core")
        for _ in 0..<30 { value = .variant(Variant(value)) }
        let reply = try await echo([value])
        #expect(reply == [value])
    }

    @Test func oneMebibyteByteArray() async throws {
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply = try await echo([.bytes(payload)])
        #expect(try [UInt8](dbusValue: reply[0]) == payload)
    }

    @Test func fileDescriptorIsPassedAndStaysUsable() async throws {
        try await self.bus.withServiceAndClient { service, client in
            var writer = ExportedInterface("org.handoff.Test.Writer")
            writer.method("Write", in: "hs") { call in
                let descriptor = try call.argument(0, as: UnixFileDescriptor.self)
                let text = try call.argument(1, as: String.self)
                let written = text.utf8CString.withUnsafeBufferPointer {
                    write(descriptor.rawValue, $0.baseAddress, $0.count - 1)
                }
                guard written == text.utf8.count else { throw DBusError(name: .ioError, message: "short write") }
                return []
            }
            writer.method("Open", out: "h") { _ in
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw DBusError(name: .ioError, message: "pipe failed") }
                _ = "from the service".withCString { write(ends[1], $0, 16) }
                close(ends[1])
                return [.unixFD(UnixFileDescriptor(takingOwnershipOf: ends[0]))]
            }
            try await service.export([writer], at: "/org/handoff/test/writer")
            let proxy = Proxy(
                connection: client, destination: service.uniqueName, path: "/org/handoff/test/writer",
                interface: "org.handoff.Test.Writer")

            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let writeEnd = UnixFileDescriptor(takingOwnershipOf: ends[1])
            try await proxy.call("Write", .unixFD(writeEnd), .string("through the pipe"))
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(ends[0], &buffer, buffer.count)
            close(ends[0])
            #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "through the pipe")

            let received = try await proxy.call("Open", returning: UnixFileDescriptor.self)
            let got = read(received.rawValue, &buffer, buffer.count)
            #expect(String(decoding: buffer.prefix(max(got, 0)), as: UTF8.self) == "from the service")
        }
    }

    @Test func typedConversionsReadNaturally() throws {
        let value = Value.dictionary(
            key: .string, value: .variant,
            [DictionaryEntry(key: .string("Powered"), value: .variant(Variant(.boolean(true))))])
        let dictionary = try [String: Variant](dbusValue: value)
        #expect(try dictionary["Powered"]?.get(Bool.self) == true)
        if let error = #expect(throws: (any Error).self, performing: { try dictionary["Powered"]?.get(String.self) }) {
            #expect((error as? DBusError)?.code == .typeMismatch)
        }
        #expect([String: [String: Variant]].dbusType.description == "a{sa{sv}}")
        #expect([ObjectPath: [String: [String: Variant]]].dbusType.description == "a{oa{sa{sv}}}")
        #expect([UInt8]([1, 2]).dbusValue == .bytes([1, 2]))
        #expect([UInt32]().dbusValue == .array(.uint32, []))
        #expect([UInt8]().dbusValue == .bytes([]))
        #expect(throws: (any Error).self) { try [String](dbusValue: .bytes([])) }
    }

    @Test func aStructuresTypeAndValuesFollowFromItsFieldTypes() throws {
        typealias Point = DBusStructure<String, Double, UInt64>
        #expect(Point.dbusType.description == "(sdt)")
        #expect([Point].dbusType.description == "a(sdt)")
        let value = Point("a", 1.5, 7).dbusValue
        #expect(value == .structure([.string("a"), .double(1.5), .uint64(7)]))
        let (name, x, count) = try Point(dbusValue: value).fields
        #expect(name == "a")
        #expect(x == 1.5)
        #expect(count == 7)
        for wrong: Value in [.structure([.string("a"), .double(1.5)]), .structure([.string("a"), .double(1.5), .uint32(7)]),
                             .structure([.string("a"), .double(1.5), .uint64(7), .string("extra")]), .string("a")] {
            if let error = #expect(throws: (any Error).self, performing: { try Point(dbusValue: wrong) }) {
                #expect((error as? DBusError)?.code == .typeMismatch)
            }
        }
    }
}
