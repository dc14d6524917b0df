import DBus
import DBusTestSupport
import Foundation
import HandoffShared
import Testing

/// Exported objects called by busctl, gdbus and dbus-send, and introspected by them.
@Suite final class ThirdPartyClientTests {
    let bus = SharedBus()

    private var service: Connection?
    private let title = Locked("groceries")
    private let pings = Locked(0)

    private func start() async throws -> (PrivateBus, Connection) {
        let bus = try self.bus.get()
        let service = try bus.connect()
        self.service = service
        try await service.export([NoteService.make(title: title, pings: pings)], at: NoteService.path)
        try await service.export([], at: "/org/handoff/test/note/child_a")
        return (bus, service)
    }

    deinit {
        service?.close()
        bus.stop()
    }

    @Test func busctlCallsMethodsAndProperties() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let path = NoteService.path.rawValue
        let interface = NoteService.interface.rawValue

        let describe = try await bus.busctl(["call", name, path, interface, "Describe", "su", "note", "3"])
        #expect(describe.succeeded, "\(describe.error)")
        #expect(describe.output.trimmingCharacters(in: .whitespacesAndNewlines) == #"s "note:3:groceries""#)

        let sum = try await bus.busctl(["call", name, path, interface, "Sum", "ai", "3", "1", "2", "10"])
        #expect(sum.output.trimmingCharacters(in: .whitespacesAndNewlines) == "x 13", "\(sum.error)")

        let set = try await bus.busctl(["set-property", name, path, interface, "Title", "s", "bread"])
        #expect(set.succeeded, "\(set.error)")
        #expect(title.value == "bread")
        let get = try await bus.busctl(["get-property", name, path, interface, "Length"])
        #expect(get.output.trimmingCharacters(in: .whitespacesAndNewlines) == "u 5")

        let readOnly = try await bus.busctl(["set-property", name, path, interface, "Length", "u", "1"])
        #expect(!readOnly.succeeded)

        let ping = try await bus.busctl(["call", name, path, "org.freedesktop.DBus.Peer", "Ping"])
        #expect(ping.succeeded, "\(ping.error)")
    }

    @Test func busctlIntrospectionListsMembersAndChildren() async throws {
        let (bus, service) = try await start()
        let result = try await bus.busctl(["introspect", service.uniqueName.rawValue, NoteService.path.rawValue])
        #expect(result.succeeded, "\(result.error)")
        let expectations = [
            "org.handoff.Test.Note1", ".Describe", ".Title", ".Edited", "org.freedesktop.DBus.Properties",
        ]
        for expected in expectations {
            #expect(result.output.contains(expected), "busctl introspect lacks \(expected):\n\(result.output)")
        }
        let tree = try await bus.busctl(["tree", service.uniqueName.rawValue])
        #expect(tree.output.contains("/org/handoff/test/note/child_a"), "\(tree.output + tree.error)")
    }

    @Test func gdbusCallsAndIntrospects() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let call = try await bus.gdbus(
            "call", ["--dest", name, "--object-path", NoteService.path.rawValue,
                     "--method", "org.handoff.Test.Note1.Describe", "x", "7"])
        #expect(call.succeeded, "\(call.error)")
        #expect(call.output.trimmingCharacters(in: .whitespacesAndNewlines) == "('x:7:groceries',)")

        let introspect = try await bus.gdbus(
            "introspect", ["--dest", name, "--object-path", NoteService.path.rawValue, "--xml"])
        #expect(introspect.succeeded, "\(introspect.error)")
        #expect(introspect.output.contains(#"<node name="child_a">"#)
                || introspect.output.contains(#"<node name="child_a"/>"#), "\(introspect.output)")

        let parsed = try await bus.gdbus("introspect", ["--dest", name, "--object-path", NoteService.path.rawValue])
        #expect(parsed.succeeded, "\(parsed.error)")
        #expect(parsed.output.contains("Describe(in  s prefix,"), "\(parsed.output)")
        #expect(parsed.output.contains("readwrite s Title"), "\(parsed.output)")
        #expect(parsed.output.contains("@org.freedesktop.DBus.Method.NoReply(\"true\")"), "\(parsed.output)")

        let recursive = try await bus.gdbus("introspect", ["--dest", name, "--object-path", "/", "--recurse"])
        #expect(recursive.succeeded, "\(recursive.error)")
        #expect(recursive.output.contains("/org/handoff/test/note/child_a"), "\(recursive.output)")
    }

    @Test func dbusSendCallsAndSetsProperties() async throws {
        let (bus, service) = try await start()
        let name = service.uniqueName.rawValue
        let call = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.handoff.Test.Note1.Describe",
            "string:ds", "uint32:1",
        ])
        #expect(call.succeeded, "\(call.error)")
        #expect(call.output.contains(#"string "ds:1:groceries""#), "\(call.output)")

        let set = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.freedesktop.DBus.Properties.Set",
            "string:org.handoff.Test.Note1", "string:Title", "variant:string:milk",
        ])
        #expect(set.succeeded, "\(set.error)")
        #expect(title.value == "milk")

        let noReply = try await bus.dbusSend(
            ["--dest=\(name)", NoteService.path.rawValue, "org.handoff.Test.Note1.Ping"])
        #expect(noReply.succeeded, "\(noReply.error)")
        // The service keeps serving after the no-reply call, and has seen it by the time it answers the next one.
        let after = try await bus.dbusSend([
            "--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.freedesktop.DBus.Peer.Ping",
        ])
        #expect(after.succeeded, "\(after.error)")

        // A caller that does wait for an answer to a NoReply method (bluezoo calls GattCharacteristic1.Confirm so)
        // gets an empty one at once, instead of holding one of its 128 pending-reply slots until it times out.
        let waited = try await bus.dbusSend(
            ["--print-reply", "--reply-timeout=5000", "--dest=\(name)", NoteService.path.rawValue,
             "org.handoff.Test.Note1.Ping"])
        #expect(waited.succeeded, "\(waited.error)")
        #expect(waited.output.contains("method return"), "\(waited.output)")
    }

    @Test func proxyReadsAndWritesProperties() async throws {
        let (bus, service) = try await start()
        let client = try bus.connect()
        defer { client.close() }
        let proxy = Proxy(
            connection: client, destination: service.uniqueName, path: NoteService.path,
            interface: NoteService.interface)
        let changes = try await proxy.propertyChanges()
        let before = try await proxy.property("Title", as: String.self)
        #expect(before == "groceries")
        try await proxy.setProperty("Title", "tea")
        let length = try await proxy.property("Length", as: UInt32.self)
        #expect(length == 3)
        let all = try await proxy.allProperties()
        #expect(try all["Title"]?.get(String.self) == "tea")
        #expect(all.count == 2)

        var iterator = changes.makeAsyncIterator()
        let next = await iterator.next()
        let change = try #require(next)
        #expect(change.path == NoteService.path)
        #expect(change.interface == NoteService.interface)
        #expect(change.changed == ["Title": Variant("tea")])
        #expect(change.invalidated == [])
    }
}
