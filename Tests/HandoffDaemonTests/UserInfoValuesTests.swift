import DBus
import Foundation
import HandoffBusContract
import HandoffDBusClient
import HandoffKit
import Testing

/// userInfo keeps its types on the bus (issue 26): `ContinueActivity` answers it as `UserInfoValues` (`a{sv}`)
/// beside the property list's bytes, each property-list type as Docs/dbus-api.md's table maps it.
@Suite(.serialized) struct UserInfoValuesTests {
    /// Offers `userInfo` as bytes on the laptop through its bus, continues it from the desktop through its bus, and
    /// returns the desktop daemon's answer.
    private func roundTrip(_ userInfo: [String: PlistValue]) async throws -> [String: Variant] {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try machines.laptop.client(asUser: getuid())
        let desktop = try machines.desktop.client(asUser: getuid())
        let bytes = try BinaryPropertyList.encode(.dictionary(userInfo))
        _ = try await call(laptop, HandoffBusAPI.Method.setCurrentActivity, "org.handoff.note", "Types", bytes)
        let remote = try await eventually { try await desktop.availableActivities().first }
        let answer = try await call(desktop, HandoffBusAPI.Method.continueActivity, remote.id.rawValue, [:])
        // The bytes are the lossless form: every type as it was offered.
        let info = try #require(answer[HandoffBusAPI.ContinueResult.userInfo])
        #expect(try BinaryPropertyList.decodeDictionary(info) == userInfo)
        return answer
    }

    private func call<each In: DBusRepresentable, each Out: DBusRepresentable>(
        _ client: DBusHandoffService,
        _ method: MethodDeclaration<DBusTypes<repeat each In>, DBusTypes<repeat each Out>>, _ arguments: repeat each In
    ) async throws -> (repeat each Out) {
        try await client.connection.call(
            method, repeat each arguments, destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath,
            interface: HandoffBusAPI.interface)
    }

    @Test func everyPropertyListTypeArrivesAsItsDBusType() async throws {
        let date = Date(timeIntervalSince1970: 1_765_000_000.25)
        let userInfo: [String: PlistValue] = [
            "string": .string("héllo"),
            "integer": .integer(-42),
            "large": .integer(.max),
            "real": .real(2.5),
            "bool": .bool(true),
            "date": .date(date),
            "data": .data(Data([0, 1, 0xFF])),
            "url": .url(URL(string: "https://example.org/a?b=c")!),
            "array": .array([.integer(1), .string("two"), .array([])]),
            "dictionary": .dictionary(["b": .bool(false), "a": .real(-0.5), "empty": .dictionary([:])]),
        ]
        let answer = try await roundTrip(userInfo)
        let values = try #require(answer[HandoffBusAPI.ContinueResult.userInfoValues])
        #expect(values.count == userInfo.count)
        #expect(try values["string"]?.get(String.self) == "héllo")
        #expect(try values["integer"]?.get(Int64.self) == -42)
        #expect(try values["large"]?.get(Int64.self) == .max)
        #expect(try values["real"]?.get(Double.self) == 2.5)
        #expect(try values["bool"]?.get(Bool.self) == true)
        #expect(try values["date"]?.get(Double.self) == 1_765_000_000.25)
        #expect(try values["data"]?.get([UInt8].self) == [0, 1, 0xFF])
        #expect(try values["url"]?.get(String.self) == "https://example.org/a?b=c")
        let array = try #require(try values["array"]?.get([Variant].self))
        #expect(array.map(\.type) == [.int64, .string, .array(.variant)])
        #expect(try array[0].get(Int64.self) == 1)
        #expect(try array[1].get(String.self) == "two")
        #expect(try array[2].get([Variant].self).isEmpty)
        let dictionary = try #require(try values["dictionary"]?.get([String: Variant].self))
        #expect(try dictionary["b"]?.get(Bool.self) == false)
        #expect(try dictionary["a"]?.get(Double.self) == -0.5)
        #expect(try dictionary["empty"]?.get([String: Variant].self).isEmpty == true)
        // Entries go sorted by key, so the same userInfo is the same message.
        guard case .dictionary(_, _, let entries)? = values["dictionary"]?.value else {
            Issue.record("the dictionary is not a{sv}")
            return
        }
        #expect(entries.map(\.key) == [.string("a"), .string("b"), .string("empty")])
    }

    /// The user-visible end: `handoff continue --print --json`, the real binary against the desktop's daemon, prints
    /// each value with its JSON type (Docs/usage.md, "JSON output").
    @Test func continuePrintJSONGivesEachValueItsJSONType() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try machines.laptop.client(asUser: getuid())
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { desktop.remove() }
        let userInfo: [String: PlistValue] = [
            "string": .string("héllo"),
            "numeric": .string("41"),
            "integer": .integer(-42),
            "large": .integer(.max),
            "real": .real(2.5),
            "infinite": .real(-.infinity),
            "bool": .bool(true),
            "date": .date(Date(timeIntervalSince1970: 1_765_000_000.25)),
            "whole": .date(Date(timeIntervalSince1970: 1_765_000_000)),
            "data": .data(Data([0, 1, 0xFF])),
            "url": .url(URL(string: "https://example.org/a?b=c")!),
            "array": .array([.integer(1), .string("two"), .bool(false), .array([])]),
            "dictionary": .dictionary(["b": .bool(false), "a": .real(-0.5), "empty": .dictionary([:])]),
        ]
        let bytes = try BinaryPropertyList.encode(.dictionary(userInfo))
        _ = try await call(laptop, HandoffBusAPI.Method.setCurrentActivity, "org.handoff.note", "Types", bytes)
        _ = try await eventually {
            let listed = try await desktop.run(["prompt", "--marker", "*"])
            return listed.output == "* " ? true : nil
        }

        let printed = try await desktop.run(["continue", "--print", "--json"])
        #expect(printed.status == 0, "\(printed.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.output.utf8)) as? [String: Any])
        #expect(Set(object.keys).isSuperset(of: ["content", "summary"]))
        let content = try #require(object["content"] as? [String: Any])
        #expect(content["type"] as? String == "org.handoff.note")
        let values = try #require(content["userInfo"] as? [String: Any])
        #expect(Set(values.keys) == Set(userInfo.keys))
        // Scalars as the pretty-printed document writes them: a number or boolean bare, anything else quoted (a
        // parsed NSNumber would not tell `true` from `1`).
        let lines = Set(printed.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for line in [#""string" : "héllo","#, #""numeric" : "41","#, #""integer" : -42,"#,
                     #""large" : 9223372036854775807,"#, #""real" : 2.5,"#, #""infinite" : "-inf","#,
                     #""bool" : true,"#, #""date" : "2025-12-06T05:46:40.250Z","#,
                     #""whole" : "2025-12-06T05:46:40Z""#, #""data" : "AAH/","#,
                     #""url" : "https://example.org/a?b=c","#] {
            #expect(lines.contains(line), "no line \(line) in \(printed.output)")
        }
        let array = try #require(values["array"] as? [Any])
        #expect(array.count == 4)
        #expect(array[1] as? String == "two")
        #expect((array[3] as? [Any])?.isEmpty == true)
        let dictionary = try #require(values["dictionary"] as? [String: Any])
        #expect(Set(dictionary.keys) == ["a", "b", "empty"])
        #expect((dictionary["empty"] as? [String: Any])?.isEmpty == true)
        #expect(lines.contains(#""a" : -0.5,"#) && lines.contains(#""b" : false,"#), "\(printed.output)")
    }

    @Test func aUserInfoTooDeepForDBusTravelsAsBytesOnly() async throws {
        var deep = PlistValue.string("bottom")
        for _ in 0..<BusCoding.maximumValueDepth { deep = .array([deep]) }
        let answer = try await roundTrip(["deep": deep])
        #expect(answer[HandoffBusAPI.ContinueResult.userInfoValues.name] == nil)
    }

    @Test func aUserInfoAsDeepAsAllowedTravelsAsValues() async throws {
        var deep = PlistValue.string("bottom")
        for _ in 1..<BusCoding.maximumValueDepth { deep = .dictionary(["next": deep]) }
        let answer = try await roundTrip(["deep": deep])
        var value = try #require(answer[HandoffBusAPI.ContinueResult.userInfoValues]?["deep"])
        var depth = 1
        while let next = try? value.get([String: Variant].self)["next"] {
            value = next
            depth += 1
        }
        #expect(depth == BusCoding.maximumValueDepth)
        #expect(try value.get(String.self) == "bottom")
    }
}
