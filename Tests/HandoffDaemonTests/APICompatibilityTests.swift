import DBus
import Foundation
import HandoffBusContract
import HandoffTesting
import Testing

/// `org.handoff.Handoff1` only grows (Docs/dbus-api.md, "An API that only grows"): the live daemon's introspection
/// is held to the published XML (`dbus-policy/interfaces/org.handoff.Handoff1.xml`, installed in
/// `/usr/share/dbus-1/interfaces/`) and to what each earlier release shipped (`org.handoff.Handoff1-VERSION.xml`
/// beside it). A method, signal or property that is gone or has other arguments fails the test; new ones pass.
///
/// After adding to the API, `HANDOFF_WRITE_API_XML=1 swift test --filter APICompatibilityTests` writes the live
/// interface over the published file, and only when nothing was broken: the file can only grow this way.
@Suite struct APICompatibilityTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dbus-policy/interfaces")
    static let published = folder.appendingPathComponent("org.handoff.Handoff1.xml")

    @Test func theLiveDaemonKeepsThePublishedInterface() async throws {
        let xml = try await Self.liveIntrospection()
        let live = try InterfaceDescription(xml: xml, interface: "org.handoff.Handoff1")
        let baseline = try InterfaceDescription(xml: String(contentsOf: Self.published, encoding: .utf8),
                                                interface: "org.handoff.Handoff1")
        let breaks = baseline.breaks(comparedWith: live)
        #expect(breaks == [], "the daemon breaks the published org.handoff.Handoff1: \(breaks)")
        let added = Set(live.members.keys).subtracting(baseline.members.keys).sorted()
        if breaks.isEmpty, ProcessInfo.processInfo.environment["HANDOFF_WRITE_API_XML"] == "1" {
            try live.publishedXML().write(to: Self.published, atomically: true, encoding: .utf8)
            return
        }
        // The installed file describes the installed daemon: an addition is published with it.
        #expect(added == [], """
            the daemon adds \(added) to org.handoff.Handoff1 but the published XML lacks them; publish them with \
            HANDOFF_WRITE_API_XML=1 swift test --filter APICompatibilityTests
            """)
    }

    /// 0.1.0 shipped `Continue` with a fifth value (`a{ss} path`), which broke clients written against the
    /// documentation of four; this release restored the four (and added `ContinueActivity`, whose dictionary can
    /// grow). That one repair is the only difference from 0.1.0 allowed, said here once.
    @Test func theLiveDaemonKeepsWhatEachReleaseShipped() async throws {
        let live = try InterfaceDescription(xml: try await Self.liveIntrospection(), interface: "org.handoff.Handoff1")
        let releases = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasPrefix("org.handoff.Handoff1-") && $0.hasSuffix(".xml") }
        #expect(releases.contains("org.handoff.Handoff1-0.1.0.xml"))
        for file in releases {
            var release = try InterfaceDescription(
                xml: String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8),
                interface: "org.handoff.Handoff1")
            if file == "org.handoff.Handoff1-0.1.0.xml" {
                let repaired = release.members["method Continue"]?.filter { $0.name != "path" }
                #expect(repaired?.count == 5, "0.1.0's Continue had id and five results")
                release.members["method Continue"] = repaired
            }
            let breaks = release.breaks(comparedWith: live)
            #expect(breaks == [], "the daemon breaks what \(file) published: \(breaks)")
        }
    }

    /// The comparison itself: removals and changes are breaks, additions are not.
    @Test func onlyAdditionsPass() throws {
        let before = try InterfaceDescription(xml: """
            <node><interface name="x.Y">
              <method name="A"><arg type="s" name="id" direction="in"/><arg type="u" name="n" direction="out"/></method>
              <method name="B"/>
              <signal name="S"><arg type="s" name="id"/></signal>
              <property name="P" type="s" access="readwrite"/>
            </interface></node>
            """, interface: "x.Y")
        let grown = try InterfaceDescription(xml: """
            <node><interface name="x.Y">
              <method name="A"><arg type="s" name="id" direction="in"/><arg type="u" name="n" direction="out"/></method>
              <method name="B"/><method name="C"><arg type="a{sv}" name="o" direction="in"/></method>
              <signal name="S"><arg type="s" name="id"/></signal><signal name="T"/>
              <property name="P" type="s" access="readwrite"/><property name="Q" type="b" access="read"/>
            </interface></node>
            """, interface: "x.Y")
        #expect(before.breaks(comparedWith: grown) == [])
        let broken = try InterfaceDescription(xml: """
            <node><interface name="x.Y">
              <method name="A"><arg type="s" name="id" direction="in"/><arg type="u" name="n" direction="out"/>
                <arg type="s" name="more" direction="out"/></method>
              <signal name="S"><arg type="t" name="id"/></signal>
              <property name="P" type="s" access="read"/>
            </interface></node>
            """, interface: "x.Y")
        #expect(before.breaks(comparedWith: broken) == [
            "method A changed: (in s id, out u n) became (in s id, out u n, out s more)",
            "method B removed",
            "property P changed: readwrite s became read s",
            "signal S changed: (s id) became (t id)",
        ])
        #expect(throws: InterfaceDescription.Missing.self) { try InterfaceDescription(xml: "<node/>", interface: "x.Y") }
    }

    /// What `Introspect` answers on `/org/handoff/Handoff1` of a daemon on its private bus.
    static func liveIntrospection() async throws -> String {
        let machine = try await Machine(name: "laptop", ether: InMemoryEther(seed: 7), configure: { _ in })
        defer { Task { await machine.shutDown() } }
        let client = try machine.bus.connect()
        defer { client.close() }
        let reply = try await client.call(
            destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath,
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        return try String(dbusValue: reply.first ?? .string(""))
    }
}

/// One interface of an introspection document: each method's, signal's and property's arguments, as the wire
/// sees them (type, name, direction, in order). Read with a small tag reader: introspection XML has elements and
/// attributes only.
struct InterfaceDescription {
    struct Missing: Error {}

    struct Argument: Equatable {
        var type: String
        var name: String
        var direction: String   // "in", "out"; a signal's and a property's are "" (a property's access is here)

        var text: String { [direction, type, name].filter { !$0.isEmpty }.joined(separator: " ") }
    }

    let name: String
    /// "method A", "signal S", "property P" → arguments (a property: one, its type and access).
    var members: [String: [Argument]] = [:]
    /// The interface's XML as it was read, for writing it back.
    let section: String

    init(xml: String, interface: String) throws {
        name = interface
        guard let start = xml.range(of: "<interface name=\"\(interface)\"") else { throw Missing() }
        let end = xml.range(of: "</interface>", range: start.upperBound..<xml.endIndex)?.upperBound ?? xml.endIndex
        let lineStart = xml[..<start.lowerBound].lastIndex(of: "\n").map { xml.index(after: $0) } ?? start.lowerBound
        section = String(xml[lineStart..<end])
        var current: String?
        for tag in Self.tags(in: section) {
            switch tag.name {
            case "method", "signal":
                current = "\(tag.name) \(tag.attributes["name"] ?? "")"
                members[current!, default: []] = []
                if tag.selfClosing { current = nil }
            case "property":
                members["property \(tag.attributes["name"] ?? "")"] = [
                    Argument(type: tag.attributes["type"] ?? "", name: "", direction: tag.attributes["access"] ?? "")]
            case "arg":
                guard let member = current else { continue }
                let direction = member.hasPrefix("method") ? tag.attributes["direction"] ?? "in" : ""
                members[member, default: []].append(
                    Argument(type: tag.attributes["type"] ?? "", name: tag.attributes["name"] ?? "",
                             direction: direction))
            case "/method", "/signal":
                current = nil
            default:
                continue
            }
        }
    }

    /// What a client of `self` would find broken in `other`: members gone, or with other arguments. A property
    /// that could be written and no longer can is broken; one that becomes writable is not.
    func breaks(comparedWith other: InterfaceDescription) -> [String] {
        members.keys.sorted().compactMap { member in
            let mine = members[member] ?? []
            guard let theirs = other.members[member] else { return "\(member) removed" }
            if member.hasPrefix("property"), let a = mine.first, let b = theirs.first, a.type == b.type,
               a.direction == b.direction || (a.direction == "read" && b.direction == "readwrite") {
                return nil
            }
            guard mine != theirs else { return nil }
            let show = { (arguments: [Argument]) in
                member.hasPrefix("property") ? arguments.map(\.text).joined()
                    : "(" + arguments.map(\.text).joined(separator: ", ") + ")"
            }
            return "\(member) changed: \(show(mine)) became \(show(theirs))"
        }
    }

    /// The document installed in `/usr/share/dbus-1/interfaces/`: this interface alone, as the daemon says it.
    func publishedXML() -> String {
        """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <!-- org.handoff.Handoff1, as handoffd exports it on /org/handoff/Handoff1 (Docs/dbus-api.md). This interface
             only grows: later versions may add methods, signals, properties and a{sv} keys, never change these.
             Generated from the daemon by Tests/HandoffDaemonTests/APICompatibilityTests.swift. -->
        <node>
        \(section)
        </node>

        """
    }

    private struct Tag {
        var name: String
        var attributes: [String: String]
        var selfClosing: Bool
    }

    private static func tags(in text: String) -> [Tag] {
        var tags: [Tag] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            var body = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if body.hasPrefix("!") || body.hasPrefix("?") { continue }
            let selfClosing = body.hasSuffix("/")
            if selfClosing { body = body.dropLast() }
            let name = String(body.prefix { !$0.isWhitespace })
            var attributes: [String: String] = [:]
            var scan = body.dropFirst(name.count)
            while let equals = scan.firstIndex(of: "="), let q1 = scan[equals...].firstIndex(of: "\""),
                  let q2 = scan[scan.index(after: q1)...].firstIndex(of: "\"") {
                let key = scan[..<equals].trimmingCharacters(in: .whitespaces)
                attributes[key] = String(scan[scan.index(after: q1)..<q2])
                scan = scan[scan.index(after: q2)...]
            }
            tags.append(Tag(name: name, attributes: attributes, selfClosing: selfClosing))
        }
        return tags
    }
}
