import DBus
import DBusTestSupport
import Foundation
import HandoffShared
import XCTest

/// Exported objects called by busctl, gdbus and dbus-send, and introspected by them.
final class ThirdPartyClientTests: XCTestCase {
    static let bus = SharedBus()
    override class func tearDown() { bus.stop() }

    private var service: Connection?
    private let title = Locked("groceries")
    private let pings = Locked(0)

    private func start() async throws -> (PrivateBus, Connection) {
        let bus = try Self.bus.get()
        let service = try bus.connect()
        self.service = service
        try await service.export([NoteService.make(title: title, pings: pings)], at: NoteService.path)
        try await service.export([], at: "/org/handoff/test/note/child_a")
        return (bus, service)
    }

    override func tearDown() {
        service?.close()
    }

    func testBusctlCallsMethodsAndProperties() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let path = NoteService.path.rawValue
        let interface = NoteService.interface.rawValue

        let describe = try await bus.busctl(["call", name, path, interface, "Describe", "su", "note", "3"])
        XCTAssertTrue(describe.succeeded, describe.error)
        XCTAssertEqual(describe.output.trimmingCharacters(in: .whitespacesAndNewlines), #"s "note:3:groceries""#)

        let sum = try await bus.busctl(["call", name, path, interface, "Sum", "ai", "3", "1", "2", "10"])
        XCTAssertEqual(sum.output.trimmingCharacters(in: .whitespacesAndNewlines), "x 13", sum.error)

        let set = try await bus.busctl(["set-property", name, path, interface, "Title", "s", "bread"])
        XCTAssertTrue(set.succeeded, set.error)
        XCTAssertEqual(title.value, "bread")
        let get = try await bus.busctl(["get-property", name, path, interface, "Length"])
        XCTAssertEqual(get.output.trimmingCharacters(in: .whitespacesAndNewlines), "u 5")

        let readOnly = try await bus.busctl(["set-property", name, path, interface, "Length", "u", "1"])
        XCTAssertFalse(readOnly.succeeded)

        let ping = try await bus.busctl(["call", name, path, "org.freedesktop.DBus.Peer", "Ping"])
        XCTAssertTrue(ping.succeeded, ping.error)
    }

    func testBusctlIntrospectionListsMembersAndChildren() async throws {
        let (bus, service) = try await start()
        let result = try await bus.busctl(["introspect", service.uniqueName.rawValue, NoteService.path.rawValue])
        XCTAssertTrue(result.succeeded, result.error)
        let expectations = [
            "org.handoff.Test.Note1", ".Describe", ".Title", ".Edited", "org.freedesktop.DBus.Properties",
        ]
        for expected in expectations {
            XCTAssertTrue(result.output.contains(expected), "busctl introspect lacks \(expected):\n\(result.output)")
        }
        let tree = try await bus.busctl(["tree", service.uniqueName.rawValue])
        XCTAssertTrue(tree.output.contains("/org/handoff/test/note/child_a"), tree.output + tree.error)
    }

    func testGdbusCallsAndIntrospects() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let call = try await bus.gdbus(
            "call", ["--dest", name, "--object-path", NoteService.path.rawValue,
                     "--method", "org.handoff.Test.Note1.Describe", "x", "7"])
        XCTAssertTrue(call.succeeded, call.error)
        XCTAssertEqual(call.output.trimmingCharacters(in: .whitespacesAndNewlines), "('x:7:groceries',)")

        let introspect = try await bus.gdbus(
            "introspect", ["--dest", name, "--object-path", NoteService.path.rawValue, "--xml"])
        XCTAssertTrue(introspect.succeeded, introspect.error)
        XCTAssertTrue(
            introspect.output.contains(#"<node name="child_a">"#)
                || introspect.output.contains(#"<node name="child_a"/>"#),
            introspect.output)

        let parsed = try await bus.gdbus("introspect", ["--dest", name, "--object-path", NoteService.path.rawValue])
        XCTAssertTrue(parsed.succeeded, parsed.error)
        XCTAssertTrue(parsed.output.contains("Describe(in  s prefix,"), parsed.output)
        XCTAssertTrue(parsed.output.contains("readwrite s Title"), parsed.output)
        XCTAssertTrue(parsed.output.contains("@org.freedesktop.DBus.Method.NoReply(\"true\")"), parsed.output)

        let recursive = try await bus.gdbus("introspect", ["--dest", name, "--object-path", "/", "--recurse"])
        XCTAssertTrue(recursive.succeeded, recursive.error)
        XCTAssertTrue(recursive.output.contains("/org/handoff/test/note/child_a"), recursive.output)
    }

    func testDbusSendCallsAndSetsProperties() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let call = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.handoff.Test.Note1.Describe",
            "string:ds", "uint32:1",
        ])
        XCTAssertTrue(call.succeeded, call.error)
        XCTAssertTrue(call.output.contains(#"string "ds:1:groceries""#), call.output)

        let set = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.freedesktop.DBus.Properties.Set",
            "string:org.handoff.Test.Note1", "string:Title", "variant:string:milk",
        ])
        XCTAssertTrue(set.succeeded, set.error)
        XCTAssertEqual(title.value, "milk")

        let noReply = try await bus.dbusSend(
            ["--dest=\(name)", NoteService.path.rawValue, "org.handoff.Test.Note1.Ping"])
        XCTAssertTrue(noReply.succeeded, noReply.error)
        // The service keeps serving after the no-reply call, and has seen it by the time it answers the next one.
        let after = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.freedesktop.DBus.Peer.Ping",
        ])
        XCTAssertTrue(after.succeeded, after.error)

        // A caller that does wait for an answer to a NoReply method (bluezoo calls GattCharacteristic1.Confirm so)
        // gets an empty one at once, instead of holding one of its 128 pending-reply slots until it times out.
        let waited = try await bus.dbusSend(
            ["--print-reply", "--reply-timeout=5000", "--dest=\(name)", NoteService.path.rawValue,
             "org.handoff.Test.Note1.Ping"])
        XCTAssertTrue(waited.succeeded, waited.error)
        XCTAssertTrue(waited.output.contains("method return"), waited.output)
    }

    func testProxyReadsAndWritesProperties() async throws {
        let (bus, service) = try await start()
        let client = try bus.connect()
        defer { client.close() }
        let proxy = Proxy(
            connection: client, destination: service.uniqueName, path: NoteService.path,
            interface: NoteService.interface)
        let changes = try await proxy.propertyChanges()
        let before = try await proxy.property("Title", as: String.self)
        XCTAssertEqual(before, "groceries")
        try await proxy.setProperty("Title", "tea")
        let length = try await proxy.property("Length", as: UInt32.self)
        XCTAssertEqual(length, 3)
        let all = try await proxy.allProperties()
        XCTAssertEqual(try all["Title"]?.get(String.self), "tea")
        XCTAssertEqual(all.count, 2)

        var iterator = changes.makeAsyncIterator()
        let next = await iterator.next()
        let change = try XCTUnwrap(next)
        XCTAssertEqual(change.path, NoteService.path)
        XCTAssertEqual(change.interface, NoteService.interface)
        XCTAssertEqual(change.changed, ["Title": Variant("tea")])
        XCTAssertEqual(change.invalidated, [])
    }
}
