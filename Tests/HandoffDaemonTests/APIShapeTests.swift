import DBus
import HandoffBusContract
import HandoffClient
import HandoffTesting
import Testing

/// The daemon's API on the wire (Docs/dbus-api.md): its shapes' signatures, pinned as they were while they were
/// still written by hand as strings (issue 13, item 2). The introspection is held to the published XML by
/// `APICompatibilityTests`.
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
}
