import DBus
import DBusTestSupport
import Foundation
import XCTest

/// Every D-Bus type, sent to an echo service on a private bus and compared with what comes back.
final class ValueRoundTripTests: XCTestCase {
    static let bus = SharedBus()
    override class func tearDown() { bus.stop() }

    private func echo(_ values: [Value], file: StaticString = #filePath, line: UInt = #line) async throws -> [Value] {
        try await Self.bus.withServiceAndClient { service, client in
            let signature = Signature(types: values.map(\.type))
            try await service.export([Echo.make(signatures: [signature.rawValue])], at: Echo.path)
            return try await client.call(
                destination: service.uniqueName, path: Echo.path, interface: Echo.interface, member: "Echo0",
                arguments: values)
        }
    }

    func testEveryBasicTypeRoundTrips() async throws {
        let values: [Value] = [
            .byte(0xFE), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535), .int32(-2_000_000_000),
            .uint32(4_000_000_000), .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300),
            .string("grüß dich ✓"), .string(""), .objectPath("/org/handoff/a_1"), .objectPath(.root),
            .signature("a{oa{sa{sv}}}"), .signature(.empty),
        ]
        let reply = try await echo(values)
        XCTAssertEqual(reply, values)
    }

    func testNestedContainersRoundTrip() async throws {
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
        XCTAssertEqual(reply.count, values.count)
        XCTAssertEqual(try [String: Variant](dbusValue: reply[0]), properties)
        XCTAssertEqual(try [ObjectPath: [String: [String: Variant]]](dbusValue: reply[1]), managed)
        XCTAssertEqual(reply[2], structure)
        XCTAssertEqual(reply[3], .array(.string, []))
        XCTAssertEqual(reply[4], values[4])
        XCTAssertEqual(reply[5], values[5])
    }

    func testVariantsNestDeeply() async throws {
        var value = Value.string("core")
        for _ in 0..<30 { value = .variant(Variant(value)) }
        let reply = try await echo([value])
        XCTAssertEqual(reply, [value])
    }

    func testOneMebibyteByteArray() async throws {
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reply = try await echo([.bytes(payload)])
        XCTAssertEqual(try [UInt8](dbusValue: reply[0]), payload)
    }

    func testFileDescriptorIsPassedAndStaysUsable() async throws {
        try await Self.bus.withServiceAndClient { service, client in
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
            XCTAssertEqual(pipe(&ends), 0)
            let writeEnd = UnixFileDescriptor(takingOwnershipOf: ends[1])
            try await proxy.call("Write", .unixFD(writeEnd), .string("through the pipe"))
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(ends[0], &buffer, buffer.count)
            close(ends[0])
            XCTAssertEqual(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self), "through the pipe")

            let received = try await proxy.call("Open", returning: UnixFileDescriptor.self)
            let got = read(received.rawValue, &buffer, buffer.count)
            XCTAssertEqual(String(decoding: buffer.prefix(max(got, 0)), as: UTF8.self), "from the service")
        }
    }

    func testTypedConversionsReadNaturally() throws {
        let value = Value.dictionary(
            key: .string, value: .variant,
            [DictionaryEntry(key: .string("Powered"), value: .variant(Variant(.boolean(true))))])
        let dictionary = try [String: Variant](dbusValue: value)
        XCTAssertEqual(try dictionary["Powered"]?.get(Bool.self), true)
        XCTAssertThrowsError(try dictionary["Powered"]?.get(String.self)) { error in
            XCTAssertEqual((error as? DBusError)?.code, .typeMismatch)
        }
        XCTAssertEqual([String: [String: Variant]].dbusType.description, "a{sa{sv}}")
        XCTAssertEqual([ObjectPath: [String: [String: Variant]]].dbusType.description, "a{oa{sa{sv}}}")
        XCTAssertEqual([UInt8]([1, 2]).dbusValue, .bytes([1, 2]))
        XCTAssertEqual([UInt32]().dbusValue, .array(.uint32, []))
        XCTAssertEqual([UInt8]().dbusValue, .bytes([]))
        XCTAssertThrowsError(try [String](dbusValue: .bytes([])))
    }

    func testAStructuresTypeAndValuesFollowFromItsFieldTypes() throws {
        typealias Point = DBusStructure<String, Double, UInt64>
        XCTAssertEqual(Point.dbusType.description, "(sdt)")
        XCTAssertEqual([Point].dbusType.description, "a(sdt)")
        let value = Point("a", 1.5, 7).dbusValue
        XCTAssertEqual(value, .structure([.string("a"), .double(1.5), .uint64(7)]))
        let (name, x, count) = try Point(dbusValue: value).fields
        XCTAssertEqual(name, "a")
        XCTAssertEqual(x, 1.5)
        XCTAssertEqual(count, 7)
        for wrong: Value in [.structure([.string("a"), .double(1.5)]), .structure([.string("a"), .double(1.5), .uint32(7)]),
                             .structure([.string("a"), .double(1.5), .uint64(7), .string("extra")]), .string("a")] {
            XCTAssertThrowsError(try Point(dbusValue: wrong)) { error in
                XCTAssertEqual((error as? DBusError)?.code, .typeMismatch)
            }
        }
    }
}
