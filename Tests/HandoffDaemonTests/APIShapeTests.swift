import DBus
import HandoffClient
import HandoffDBusClient
import HandoffTesting
import Testing

/// The daemon's API on the wire (Docs/dbus-api.md): its shapes' signatures and the introspection of
/// `/org/handoff/Handoff1`, pinned as they were while they were still written by hand as strings (issue 13,
/// item 2). Deriving them from Swift types must not change a byte of either.
@Suite struct APIShapeTests {
    @Test func theShapesKeepTheirSignatures() {
        #expect(HandoffBusAPI.summarySignature.rawValue == "(ssssdt)")
        #expect(HandoffBusAPI.deviceSignature.rawValue == "(ssbd)")
        #expect(HandoffBusAPI.outboxEntrySignature.rawValue == "(sssssttds)")
        #expect(HandoffBusAPI.inboxEntrySignature.rawValue == "(ssssstds)")
        #expect(ActivitySummary.dbusType.description == "(ssssdt)")
        #expect(DeviceInfo.dbusType.description == "(ssbd)")
        #expect(OutboxEntry.dbusType.description == "(sssssttds)")
        #expect(InboxEntry.dbusType.description == "(ssssstds)")
        #expect(ContinuePath.dbusType.description == "a{ss}")
    }

    /// The values, too, are what the hand-written packers made: negative sizes as 0, a never-seen device's age
    /// as -1, a continue's path with `transport` first.
    @Test func theShapesKeepTheirValues() throws {
        let summary = ActivitySummary(id: ActivityID(rawValue: "i"), type: "t", title: "x", device: "d", age: 1.5,
                                      size: -3)
        #expect(summary.dbusValue == .structure([.string("i"), .string("t"), .string("x"), .string("d"), .double(1.5),
                                                 .uint64(0)]))
        let device = DeviceInfo(id: "i", name: "n", inRange: true, lastSeenSecondsAgo: nil)
        #expect(device.dbusValue == .structure([.string("i"), .string("n"), .boolean(true), .double(-1)]))
        #expect(try DeviceInfo(dbusValue: device.dbusValue) == device)
        let path = ContinuePath(transport: "gatt", fallback: "refused")
        #expect(path.dbusValue == .dictionary(key: .string, value: .string, [
            DictionaryEntry(key: .string("transport"), value: .string("gatt")),
            DictionaryEntry(key: .string("fallback"), value: .string("refused")),
        ]))
        #expect(try ContinuePath(dbusValue: path.dbusValue) == path)
        let outbox = OutboxEntry(id: "i", device: "d", name: "n", kind: "file", state: "pending", sentBytes: 1,
                                 totalBytes: 2, ageSeconds: 3, reason: "")
        #expect(try OutboxEntry(dbusValue: outbox.dbusValue) == outbox)
        let lane = OutboxPath(id: "i", transport: "tcp", bytesPerSecond: 8.4e7)
        #expect(OutboxPath.dbusType.description == "(ssd)")
        #expect(try OutboxPath(dbusValue: lane.dbusValue) == lane)
        let inbox = InboxEntry(id: "i", sender: "s", name: "n", kind: "text", mediaType: "text/plain", sizeBytes: 4,
                               ageSeconds: 5, originalName: "o")
        #expect(try InboxEntry(dbusValue: inbox.dbusValue) == inbox)
    }

    /// Every method's and signal's arguments, with their types, names and directions, in declaration order.
    @Test func theIntrospectionIsUnchanged() async throws {
        let machine = try await Machine(name: "laptop", ether: InMemoryEther(seed: 7), configure: { _ in })
        defer { Task { await machine.shutDown() } }
        let client = try machine.bus.connect()
        defer { client.close() }
        let reply = try await client.call(
            destination: HandoffBusAPI.busName, path: HandoffBusAPI.objectPath,
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        let xml = try String(dbusValue: reply.first ?? .string(""))
        let start = try #require(xml.range(of: #"  <interface name="org.handoff.Handoff1">"#))
        let end = try #require(xml.range(of: "  </interface>\n", range: start.upperBound..<xml.endIndex))
        #expect(xml[start.lowerBound..<end.upperBound] == Self.introspection)
    }

    /// The daemon's interface in what `Introspect` answered before the signatures were derived from types (the
    /// standard interfaces around it are the D-Bus layer's, tested there).
    static let introspection = #"""
          <interface name="org.handoff.Handoff1">
            <method name="Status">
              <arg type="a{sv}" name="status" direction="out"/>
            </method>
            <method name="SetCurrentActivity">
              <arg type="s" name="type" direction="in"/>
              <arg type="s" name="title" direction="in"/>
              <arg type="ay" name="userInfo" direction="in"/>
              <arg type="s" name="id" direction="out"/>
            </method>
            <method name="UpdateCurrentActivity">
              <arg type="s" name="id" direction="in"/>
              <arg type="s" name="title" direction="in"/>
              <arg type="ay" name="userInfo" direction="in"/>
            </method>
            <method name="ResignCurrentActivity">
              <arg type="s" name="id" direction="in"/>
              <arg type="t" name="graceMilliseconds" direction="in"/>
            </method>
            <method name="AvailableActivities">
              <arg type="a(ssssdt)" name="activities" direction="out"/>
            </method>
            <method name="WatchActivities">
            </method>
            <method name="Continue">
              <arg type="s" name="id" direction="in"/>
              <arg type="(ssssdt)" name="summary" direction="out"/>
              <arg type="s" name="type" direction="out"/>
              <arg type="s" name="title" direction="out"/>
              <arg type="ay" name="userInfo" direction="out"/>
              <arg type="a{ss}" name="path" direction="out"/>
            </method>
            <method name="Devices">
              <arg type="a(ssbd)" name="devices" direction="out"/>
            </method>
            <method name="Pair">
              <arg type="s" name="deviceName" direction="in"/>
              <arg type="u" name="timeoutSeconds" direction="in"/>
              <arg type="(ssbd)" name="device" direction="out"/>
            </method>
            <method name="AcceptPairing">
              <arg type="u" name="timeoutSeconds" direction="in"/>
              <arg type="(ssbd)" name="device" direction="out"/>
            </method>
            <method name="ConfirmPairing">
              <arg type="s" name="code" direction="in"/>
              <arg type="b" name="accept" direction="in"/>
            </method>
            <method name="Unpair">
              <arg type="s" name="device" direction="in"/>
            </method>
            <method name="Share">
              <arg type="s" name="device" direction="in"/>
              <arg type="s" name="kind" direction="in"/>
              <arg type="s" name="name" direction="in"/>
              <arg type="s" name="mediaType" direction="in"/>
              <arg type="ay" name="content" direction="in"/>
              <arg type="(sssssttds)" name="entry" direction="out"/>
            </method>
            <method name="ShareFile">
              <arg type="s" name="device" direction="in"/>
              <arg type="s" name="name" direction="in"/>
              <arg type="s" name="mediaType" direction="in"/>
              <arg type="h" name="file" direction="in"/>
              <arg type="(sssssttds)" name="entry" direction="out"/>
            </method>
            <method name="Outbox">
              <arg type="a(sssssttds)" name="entries" direction="out"/>
            </method>
            <method name="OutboxPaths">
              <arg type="a(ssd)" name="paths" direction="out"/>
            </method>
            <method name="CancelOutboxItem">
              <arg type="s" name="id" direction="in"/>
            </method>
            <method name="Inbox">
              <arg type="a(ssssstds)" name="items" direction="out"/>
            </method>
            <method name="ClaimInboxItem">
              <arg type="s" name="id" direction="in"/>
              <arg type="s" name="destination" direction="in"/>
              <arg type="(ssssstds)" name="item" direction="out"/>
              <arg type="h" name="data" direction="out"/>
              <arg type="s" name="previousDestination" direction="out"/>
            </method>
            <method name="FinishInboxItem">
              <arg type="s" name="id" direction="in"/>
            </method>
            <method name="ReleaseInboxItem">
              <arg type="s" name="id" direction="in"/>
            </method>
            <method name="DropInboxItem">
              <arg type="s" name="id" direction="in"/>
            </method>
            <method name="InboxPartials">
              <arg type="a(sssttdd)" name="partials" direction="out"/>
            </method>
            <method name="DropInboxPartial">
              <arg type="s" name="id" direction="in"/>
            </method>
            <signal name="ActivityAppeared">
              <arg type="(ssssdt)" name="activity"/>
            </signal>
            <signal name="ActivityDisappeared">
              <arg type="(ssssdt)" name="activity"/>
            </signal>
            <signal name="Progress">
              <arg type="s" name="id"/>
              <arg type="s" name="phase"/>
              <arg type="t" name="receivedBytes"/>
              <arg type="t" name="totalBytes"/>
            </signal>
            <signal name="PairingCode">
              <arg type="s" name="deviceName"/>
              <arg type="s" name="code"/>
            </signal>
            <signal name="ItemArrived">
              <arg type="(ssssstds)" name="item"/>
            </signal>
          </interface>

        """#
}
