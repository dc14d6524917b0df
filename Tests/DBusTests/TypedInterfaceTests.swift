import DBus
import Testing

/// Methods and signals declared by Swift types: the signatures follow from the types, the handler reads and
/// returns Swift values, and the object looks on the bus exactly as one declared with signature strings.
@Suite struct TypedInterfaceTests {
    static let interfaceName: InterfaceName = "org.handoff.Test.Typed"
    static let path: ObjectPath = "/org/handoff/test/typed"

    @Test func aSignatureFollowsFromSwiftTypes() {
        #expect(Signature(of: String.self, [UInt8].self) == "say")
        #expect(Signature(of: [String: Variant].self, DBusStructure<String, Double>.self) == "a{sv}(sd)")
    }

    /// The same interface declared twice, with types and with strings: the introspection is the same.
    @Test func typedDeclarationsIntrospectAsSignatureStringsDo() async throws {
        var typed = ExportedInterface(Self.interfaceName)
        typed.method("Describe", in: String.self, UInt32.self, out: String.self, inputNames: ["name", "count"],
                     outputNames: ["text"]) { _, name, count in "\(name):\(count)" }
        typed.method("Nothing") { _ in }
        typed.method("Pair", out: DBusStructure<String, Bool>.self, [String].self) { _ in
            (DBusStructure("a", true), ["b"])
        }
        typed.signal(SignalDeclaration("Changed", of: String.self, UInt64.self, argumentNames: ["id", "size"]))
        var untyped = ExportedInterface(Self.interfaceName)
        untyped.method("Describe", in: "su", out: "s", inputNames: ["name", "count"], outputNames: ["text"]) { _ in [] }
        untyped.method("Nothing") { _ in [] }
        untyped.method("Pair", out: "(sb)as") { _ in [] }
        untyped.signal("Changed", "st", argumentNames: ["id", "size"])
        #expect(try await introspect(typed) == introspect(untyped))
    }

    @Test func aTypedMethodGetsAndReturnsSwiftValues() async throws {
        try await onPrivateBus { service, client in
            var interface = ExportedInterface(Self.interfaceName)
            interface.method("Describe", in: String.self, UInt32.self, out: String.self, UInt64.self) {
                _, name, count in ("\(name):\(count)", UInt64(count) * 2)
            }
            try await service.export([interface], at: Self.path)
            let reply = try await client.call(
                destination: service.uniqueName, path: Self.path, interface: Self.interfaceName, member: "Describe",
                arguments: [.string("note"), .uint32(3)])
            #expect(reply == [.string("note:3"), .uint64(6)])
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    destination: service.uniqueName, path: Self.path, interface: Self.interfaceName,
                    member: "Describe", arguments: [.string("note")])
            }
            #expect(error?.name == .invalidArgs)
            #expect(error?.message.contains("'su'") == true)
        }
    }

    @Test func aDeclaredSignalIsEmittedAndReadAsSwiftValues() async throws {
        let changed = SignalDeclaration("Changed", of: String.self, UInt64.self)
        let other = SignalDeclaration("Changed", of: String.self)
        #expect(changed.signature == "st")
        let message = try await onPrivateBus { service, client in
            let messages = try await client.signals(
                matching: MatchRule.signal(interface: Self.interfaceName, member: changed.name))
            try service.emitSignal(changed, "note", 7, path: Self.path, interface: Self.interfaceName,
                                   destination: client.uniqueName)
            var iterator = messages.makeAsyncIterator()
            return try #require(await iterator.next())
        }
        let (id, size) = try changed.arguments(of: message)
        #expect(id == "note")
        #expect(size == 7)
        #expect(throws: DBusError.self) { try other.arguments(of: message) }
    }

    /// One declaration serves both sides: the exporter's handler and the caller take and give Swift values, the
    /// introspection is the one the declaration's types and names give, and a reply of another shape is refused.
    @Test func aDeclaredMethodIsExportedAndCalledWithSwiftValues() async throws {
        let describe = MethodDeclaration("Describe", in: String.self, UInt32.self, out: String.self, UInt64.self,
                                         inputNames: ["name", "count"], outputNames: ["text", "twice"])
        let nothing = MethodDeclaration("Nothing")
        #expect(describe.inputSignature == "su")
        #expect(describe.outputSignature == "st")
        #expect(nothing.inputSignature == "" && nothing.outputSignature == "")
        var declared = ExportedInterface(Self.interfaceName)
        declared.method(describe) { _, name, count in ("\(name):\(count)", UInt64(count) * 2) }
        declared.method(nothing) { _ in }
        var untyped = ExportedInterface(Self.interfaceName)
        untyped.method("Describe", in: "su", out: "st", inputNames: ["name", "count"], outputNames: ["text", "twice"]) {
            _ in []
        }
        untyped.method("Nothing") { _ in [] }
        #expect(try await introspect(declared) == introspect(untyped))

        try await onPrivateBus { service, client in
            try await service.export([declared], at: Self.path)
            let (text, twice) = try await client.call(
                describe, "note", 3, destination: service.uniqueName, path: Self.path, interface: Self.interfaceName)
            #expect(text == "note:3")
            #expect(twice == 6)
            try await client.call(nothing, destination: service.uniqueName, path: Self.path,
                                  interface: Self.interfaceName)
            // A caller whose declaration says other results than the method gives gets a clear type mismatch.
            let wrong = MethodDeclaration("Describe", in: String.self, UInt32.self, out: String.self)
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(wrong, "note", 3, destination: service.uniqueName, path: Self.path,
                                          interface: Self.interfaceName)
            }
            #expect(error?.code == .typeMismatch)
            #expect(error?.message.contains("must carry 's', got 'st'") == true)
        }
    }

    /// The XML `Introspect` answers for an object with just `interface`.
    private func introspect(_ interface: ExportedInterface) async throws -> String {
        try await onPrivateBus { service, client in
            try await service.export([interface], at: Self.path)
            let reply = try await client.call(
                destination: service.uniqueName, path: Self.path, interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect")
            return try String(dbusValue: reply.first ?? .string(""))
        }
    }

    /// A private bus with a service and a client connection, all gone once `body` returns or throws.
    private func onPrivateBus<R>(_ body: (_ service: Connection, _ client: Connection) async throws -> R)
        async throws -> R
    {
        let bus = SharedBus()
        defer { bus.stop() }
        return try await bus.withServiceAndClient(body)
    }
}
