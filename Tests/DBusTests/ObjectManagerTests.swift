import DBus
import DBusTestSupport
import Testing

/// org.freedesktop.DBus.ObjectManager as BlueZ expects of a GATT application root.
@Suite final class ObjectManagerTests {
    let bus = SharedBus()
    deinit { bus.stop() }

    private func characteristic(_ value: [UInt8]) -> ExportedInterface {
        var chrc = ExportedInterface("org.bluez.GattCharacteristic1")
        chrc.property("UUID", get: { "2a37" })
        chrc.property("Value", get: { value })
        chrc.property("Flags", get: { ["read", "notify"] })
        return chrc
    }

    @Test func managedObjectsAndAddedRemovedSignals() async throws {
        let bus = try self.bus.get()
        let service = try bus.connect()
        let client = try bus.connect()
        defer {
            service.close()
            client.close()
        }
        let root: ObjectPath = "/org/handoff/app"
        try await service.export([], at: root, objectManager: true)
        let rule = MatchRule.signal(interface: "org.freedesktop.DBus.ObjectManager", path: root)
            .sender(service.uniqueName)
        let signals = try await client.signals(matching: rule)
        var iterator = signals.makeAsyncIterator()

        var gattService = ExportedInterface("org.bluez.GattService1")
        gattService.property("UUID", get: { "180d" })
        gattService.property("Primary", get: { true })
        try await service.export([gattService], at: "/org/handoff/app/service0")
        try await service.export([characteristic([1, 2])], at: "/org/handoff/app/service0/char0")

        let added = await iterator.next()
        #expect(added?.member == "InterfacesAdded")
        let addedArguments = try #require(added).arguments()
        #expect(addedArguments.first == .objectPath("/org/handoff/app/service0"))
        let addedInterfaces = try [String: [String: Variant]](dbusValue: addedArguments[1])
        #expect(try addedInterfaces["org.bluez.GattService1"]?["Primary"]?.get(Bool.self) == true)
        _ = await iterator.next()

        let manager = Proxy(
            connection: client, destination: service.uniqueName, path: root,
            interface: "org.freedesktop.DBus.ObjectManager")
        let objects = try await manager.call(
            "GetManagedObjects", returning: [ObjectPath: [String: [String: Variant]]].self)
        #expect(Set(objects.keys) == ["/org/handoff/app/service0", "/org/handoff/app/service0/char0"])
        let value = try objects["/org/handoff/app/service0/char0"]?["org.bluez.GattCharacteristic1"]?["Value"]?
            .get([UInt8].self)
        #expect(value == [1, 2])

        #expect(try service.unexport("/org/handoff/app/service0/char0"))
        #expect(!(try service.unexport("/org/handoff/app/service0/char0")))
        let removed = await iterator.next()
        #expect(removed?.member == "InterfacesRemoved")
        let removedArguments = try #require(removed).arguments()
        #expect(removedArguments.first == .objectPath("/org/handoff/app/service0/char0"))
        #expect(try [String](dbusValue: removedArguments[1]) == ["org.bluez.GattCharacteristic1"])

        let after = try await manager.call(
            "GetManagedObjects", returning: [ObjectPath: [String: [String: Variant]]].self)
        #expect(Set(after.keys) == ["/org/handoff/app/service0"])

        let busctl = try await bus.busctl([
            "call", service.uniqueName.rawValue, root.rawValue, "org.freedesktop.DBus.ObjectManager",
            "GetManagedObjects",
        ])
        #expect(busctl.succeeded, "\(busctl.error)")
        #expect(busctl.output.hasPrefix("a{oa{sa{sv}}} 1 "), "\(busctl.output)")
    }

    /// bluetoothd gives a GATT application's attributes handles in the order GetManagedObjects lists them, so
    /// that order must be the same in every process: path order, a parent first, `char2` before `char10`.
    @Test func managedObjectsAreListedInPathOrderInEveryProcess() async throws {
        try await self.bus.withServiceAndClient { service, client in
            let root: ObjectPath = "/org/handoff/ordered"
            try await service.export([], at: root, objectManager: true)
            var gattService = ExportedInterface("org.bluez.GattService1")
            gattService.property("UUID", get: { "180d" })
            try await service.export([gattService], at: "/org/handoff/ordered/service0")
            for index in [7, 2, 11, 0, 10, 1] {
                try await service.export([characteristic([UInt8(index)])], at: try ObjectPath(
                    "/org/handoff/ordered/service0/char\(index)"))
            }
            try await service.export([characteristic([])], at: "/org/handoff/ordered/service0/char2/desc0")
            let manager = Proxy(
                connection: client, destination: service.uniqueName, path: root,
                interface: "org.freedesktop.DBus.ObjectManager")
            let reply = try await manager.call("GetManagedObjects")
            guard case .dictionary(_, _, let entries) = try #require(reply.first) else {
                Issue.record("GetManagedObjects answered \(reply)")
                return
            }
            let listed = try entries.map { try ObjectPath(dbusValue: $0.key).rawValue }
            let prefix = "/org/handoff/ordered/service0"
            #expect(listed == [prefix] + ["char0", "char1", "char2", "char2/desc0", "char7", "char10", "char11"]
                .map { "\(prefix)/\($0)" })
        }
    }

    @Test func exportingTwiceAtOnePathIsAnError() async throws {
        let bus = try self.bus.get()
        let service = try bus.connect()
        defer { service.close() }
        try await service.export([characteristic([])], at: "/org/handoff/x")
        do {
            try await service.export([characteristic([])], at: "/org/handoff/x")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidValue)
        }
    }
}
