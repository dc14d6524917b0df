import Foundation
import HandoffClient
import HandoffNotes
import Testing

/// The daemon commands' behaviour against an in-memory service: what users will see once the daemon is wired.
@Suite struct DaemonCommandsWithAServiceTests {
    static let groceries = ActivityContent.note(name: "groceries", title: "Groceries", content: "Groceries\nmilk\n")
    static let older = ActivityContent.note(name: "old", title: "Old", content: "Old\n")

    func harness() async throws -> InProcessHarness {
        let harness = try InProcessHarness()
        await harness.service.offer(Self.older, from: "desktop", age: 90, id: "a1")
        await harness.service.offer(Self.groceries, from: "laptop", age: 5, id: "a2")
        return harness
    }

    @Test func stdinNoteIsOfferedWithTitleAndContentThenResignedAfterTheGrace() async throws {
        let harness = try await harness()
        let status = await harness.run(["note", "edit", "todo", "--stdin", "--grace", "42"], input: "# Todo\ncall\n")
        #expect(status == 0)
        #expect(await harness.service.offered == [.note(name: "todo", title: "Todo", content: "# Todo\ncall\n")])
        let resigned = await harness.service.resigned
        #expect(resigned.map(\.1) == [.seconds(42)])
        #expect(harness.error.contains("offered to your nearby devices for 42 more seconds"))
    }

    @Test func aNoteWithoutANameIsNamedAfterTheCommandsClock() async throws {
        // 2001-09-09 12:53:20 UTC: the same day in every time zone within 11 hours of UTC.
        let harness = try InProcessHarness(now: Date(timeIntervalSince1970: 1_000_040_000))
        #expect(await harness.run(["note", "edit", "--stdin"], input: "call\n") == 0)
        let name = await harness.service.offered.first?.userInfo[ActivityContent.NoteKey.name]
        #expect(name?.hasPrefix("Note 2001-09-09 ") == true, "named \(name ?? "nothing")")
    }

    @Test func continuePrintTakesTheFreshestActivity() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue", "--print"]) == 0)
        #expect(harness.output == "Groceries\nmilk\n")
        #expect(try harness.store.list().isEmpty, "--print must not write notes")
    }

    @Test func continuePauseSourceAsksTheDaemonToPauseTheSource() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue", "--print"]) == 0)
        #expect(await harness.service.pausedSources == [])
        #expect(await harness.run(["continue", "--print", "--pause-source"]) == 0)
        #expect(await harness.service.pausedSources == [ActivityID(rawValue: "a2")])
    }

    @Test func continueFiltersByDeviceAndType() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue", "--from", "desktop", "--print"]) == 0)
        #expect(harness.output == "Old\n")
        #expect(await harness.run(["continue", "--type", "org.example.other"]) == 3)
        #expect(harness.error == "handoff: error: no activity is available of type 'org.example.other'\n")
    }

    @Test func continuePrintJSONIsTheContinuedActivity() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue", "--print", "--json"]) == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(harness.output.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(Set(summary.keys) == ["ageSeconds", "device", "id", "sizeBytes", "title", "type"])
        #expect(summary["device"] as? String == "laptop")
        let content = try #require(object["content"] as? [String: Any])
        #expect(Set(content.keys) == ["title", "type", "userInfo"])
    }

    /// An activity of a type the CLI cannot restore: `--print` prints its userInfo as JSON, each value with its type.
    @Test func continuePrintOfAnUnknownTypePrintsItsTypedUserInfo() async throws {
        let harness = try InProcessHarness()
        let book = ActivityContent(type: "org.example.reader", title: "Book", userInfo: ["page": "41", "on": "true"])
        await harness.service.offer(book, from: "laptop", age: 1, id: "b1")
        await harness.service.setTypedUserInfo(["page": .integer(41), "on": .bool(true)], of: "b1")
        #expect(await harness.run(["continue", "--print"]) == 0)
        #expect(harness.output == "{\n  \"on\" : true,\n  \"page\" : 41\n}\n")
    }

    @Test func continueRestoresTheNoteAndReportsTheOutcome() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue"]) == 0)
        #expect(harness.error.contains("restored note 'groceries'"))
        #expect(try harness.store.read(NoteName("groceries")).content == "Groceries\nmilk\n")
    }

    @Test func continueKeepsALocalNoteAndExits5() async throws {
        let harness = try await harness()
        try harness.store.write("my own groceries\n", to: NoteName("groceries"))
        #expect(await harness.run(["continue", "--json"]) == 5)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(harness.output.utf8)) as? [String: Any])
        #expect(object["outcome"] as? String == "kept-both")
        #expect(object["reason"] as? String == "local-changes")
        let note = try #require(object["note"] as? [String: Any])
        #expect((note["name"] as? String)?.hasPrefix("groceries (from laptop, ") == true)
        #expect(try harness.store.read(NoteName("groceries")).content == "my own groceries\n")
        #expect(try harness.store.list().count == 2)
    }

    @Test func onATerminalTheUserChoosesAmongSeveralActivities() async throws {
        let harness = try await harness()
        #expect(await harness.run(["continue"], answer: "2", onTerminal: true) == 0)
        #expect(harness.error.contains("  1) Groceries — org.handoff.note from laptop, 5 s ago\n"))
        #expect(harness.error.contains("  2) Old — org.handoff.note from desktop, 90 s ago\n"))
        #expect(try harness.store.read(NoteName("old")).content == "Old\n")
        #expect(await harness.run(["continue"], answer: "9", onTerminal: true) == 64)
        #expect(harness.error.contains("'9' is not a number between 1 and 2"))
    }

    @Test func largePayloadsShowAProgressBarOnATerminal() async throws {
        let harness = try InProcessHarness()
        let big = ActivityContent.note(name: "big", title: "Big", content: String(repeating: "x", count: 10_000))
        await harness.service.offer(big, from: "laptop", age: 1, id: "b")
        #expect(await harness.run(["continue", "--print"], onTerminal: true) == 0)
        #expect(harness.error.contains("] 100%"))
        #expect(harness.output.count == 10_000)
        #expect(await harness.run(["continue", "--print"], onTerminal: false) == 0)
        #expect(!harness.error.contains("%"), "no progress bar when standard error is not a terminal")
    }

    @Test func continueFailurePrintsTheRemoteCodeAndExits4() async throws {
        let harness = try await harness()
        await harness.service.failContinue(with: ServiceError(
            .continueFailed, "the sender refused: payload too large", remoteCode: "HandoffError.tooLarge"))
        #expect(await harness.run(["continue"]) == 4)
        #expect(harness.error
            == "handoff: error: the sender refused: payload too large [HandoffError.tooLarge]\n")
    }

    @Test func nothingAvailableExits3() async throws {
        let harness = try InProcessHarness()
        #expect(await harness.run(["continue"]) == 3)
        #expect(await harness.run(["prompt"]) == 0)
        #expect(harness.output.isEmpty)
    }

    @Test func promptPrintsTheMarkerWhileSomethingIsAvailable() async throws {
        let harness = try await harness()
        #expect(await harness.run(["prompt"]) == 0)
        #expect(harness.output == "⇄ ")
        #expect(await harness.run(["prompt", "--marker", "[H]"]) == 0)
        #expect(harness.output == "[H] ")
    }

    @Test func watchPrintsALinePerEvent() async throws {
        let harness = try await harness()
        let summary = try #require(await harness.service.activities.last)
        await harness.service.setEvents([ActivityEvent(.disappeared, summary), ActivityEvent(.appeared, summary)])
        #expect(await harness.run(["watch"]) == 0)
        #expect(harness.output == "available: Old (org.handoff.note) from desktop\n"
            + "available: Groceries (org.handoff.note) from laptop\n"
            + "gone: Groceries (org.handoff.note) from laptop\n"
            + "available: Groceries (org.handoff.note) from laptop\n")
        #expect(await harness.run(["watch", "--json"]) == 0)
        let lines = harness.output.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("{\"activity\":{\"ageSeconds\":5,\"device\":\"laptop\",\"id\":\"a2\""))
        #expect(lines[1].hasSuffix("\"event\":\"appeared\"}"))
    }

    /// A user who starts `handoff watch` after the other machine offered its note sees the note at once: the watch
    /// starts with what is available, and a signal for the same activity in the meantime is not shown again.
    @Test func watchStartsWithWhatIsAvailableAndShowsEachAvailabilityOnce() async throws {
        let harness = try await harness()
        let groceries = try #require(await harness.service.activities.last)
        let older = try #require(await harness.service.activities.first)
        await harness.service.setEvents([
            ActivityEvent(.appeared, groceries), ActivityEvent(.disappeared, older), ActivityEvent(.disappeared, older),
        ])
        #expect(await harness.run(["watch"]) == 0)
        #expect(harness.output == "available: Old (org.handoff.note) from desktop\n"
            + "available: Groceries (org.handoff.note) from laptop\n"
            + "gone: Old (org.handoff.note) from desktop\n")
    }

    @Test func statusSaysWhichAdapterTheDaemonUsesAndWhenItHasNone() async throws {
        let harness = try await harness()
        await harness.service.setAdapter("hci1", address: "00:AA:01:01:00:01", powered: true,
                                         choice: "in place of 00:AA:01:00:00:00 (away)")
        #expect(await harness.run(["status"]) == 0)
        #expect(harness.output.contains("adapter: hci1 00:AA:01:01:00:01 (on; in place of 00:AA:01:00:00:00 (away))\n"))
        #expect(await harness.run(["status", "--json"]) == 0)
        #expect(harness.output.contains("\"adapterAddress\" : \"00:AA:01:01:00:01\""))
        #expect(harness.output.contains("\"adapterChoice\" : \"in place of 00:AA:01:00:00:00 (away)\""))
        await harness.service.setAdapter(nil, address: nil, powered: false, choice: "waiting for --adapter hci1")
        #expect(await harness.run(["status"]) == 0)
        #expect(harness.output.contains("adapter: none (waiting for --adapter hci1)\n"))
        #expect(await harness.run(["status", "--json"]) == 0)
        #expect(!harness.output.contains("\"adapter\" :"))
        #expect(!harness.output.contains("\"adapterAddress\""))
    }

    @Test func devicesStatusPairAndUnpair() async throws {
        let harness = try await harness()
        await harness.service.setDevices([DeviceInfo(id: "fp1", name: "laptop", inRange: true, lastSeenSecondsAgo: 2)])
        #expect(await harness.run(["devices"]) == 0)
        #expect(harness.output == "laptop  in range  fp1\n")
        #expect(await harness.run(["devices", "--json"]) == 0)
        #expect(harness.output.contains("\"lastSeenSecondsAgo\" : 2"))
        #expect(await harness.run(["status", "--json"]) == 0)
        #expect(harness.output.contains("\"availableActivities\" : 2"))
        #expect(await harness.run(["status"]) == 0)
        #expect(harness.output.contains("adapter: hci0 (on)"))
        #expect(await harness.run(["pair"], answer: "y") == 0)
        #expect(harness.error.contains("Both screens must show 123456"))
        #expect(await harness.run(["pair"], answer: "n") == 1)
        #expect(await harness.run(["unpair", "laptop"]) == 0)
        #expect(await harness.run(["unpair", "phone"]) == 66)
    }
}
