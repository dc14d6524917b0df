import Foundation
import HandoffClient
import Testing
@testable import handoff

/// copy, paste, open and continue of the desktop kinds, in-process against a fake daemon.
@Suite struct DesktopCommandTests {
    static let clip = ActivityContent(type: "org.handoff.clipboard", title: "Text, 5 characters",
                                      userInfo: ["mediaType": "text/plain", "text": "hello"])

    @Test func copyOffersStandardInputAsAClipboardActivity() async throws {
        let harness = try InProcessHarness()
        #expect(await harness.run(["copy"], input: "ssh build-01\n") == 0)
        let offered = await harness.service.offered
        #expect(offered == [ActivityContent(type: "org.handoff.clipboard", title: "Text, 13 characters",
                                            userInfo: ["mediaType": "text/plain", "text": "ssh build-01\n"])])
        #expect(harness.error.contains("for 2 minutes"))
    }

    @Test func copyWithNothingOnStandardInputOffersNothing() async throws {
        let harness = try InProcessHarness()
        #expect(await harness.run(["copy"], input: "") == 7)
        #expect(await harness.service.offered.isEmpty)
    }

    @Test func pasteTakesTheFreshestUnexpiredClipboard() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(ActivityContent.note(name: "n", title: "N", content: "x"), from: "laptop",
                                    age: 1, id: "note")
        await harness.service.offer(Self.clip, from: "laptop", age: 30, id: "clip")
        #expect(await harness.run(["paste"]) == 0)
        #expect(harness.output == "hello")
    }

    @Test func anExpiredClipboardIsNotPasted() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(Self.clip, from: "laptop", age: 130, id: "clip")
        #expect(await harness.run(["paste"]) == 3)
        #expect(harness.error.contains("expired 10 s ago"))
    }

    @Test func pasteSetWithoutADesktopIsAClearError() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(Self.clip, from: "laptop", age: 3, id: "clip")
        #expect(await harness.run(["paste", "--set"]) == 7)
        #expect(harness.error == "handoff: error: no desktop clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set\n")
    }

    @Test func openOffersTheURLAndRefusesAHostileOne() async throws {
        let harness = try InProcessHarness()
        #expect(await harness.run(["open", "https://example.org/a"]) == 0)
        #expect(await harness.service.offered.first?.userInfo == ["url": "https://example.org/a"])
        #expect(await harness.run(["open", "https://example.org/\u{1B}]0;x\u{7}"]) == 65)
    }

    @Test func continueOfAnOtherSchemeShowsItAndNeverOpensIt() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(ActivityContent(type: "org.handoff.web", title: "t",
                                                    userInfo: ["url": "file:///etc/shadow"]),
                                    from: "laptop", age: 1, id: "web")
        #expect(await harness.run(["continue"]) == 65)
        #expect(harness.output == "file:///etc/shadow\n")
        #expect(harness.error.contains("not opened: only http and https links are opened, this one is 'file'"))
    }

    @Test func continuePrintOfAWebPagePrintsItsURL() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(ActivityContent(type: "org.handoff.web", title: "t",
                                                    userInfo: ["url": "https://example.org/"]),
                                    from: "laptop", age: 1, id: "web")
        #expect(await harness.run(["continue", "--print"]) == 0)
        #expect(harness.output == "https://example.org/\n")
    }

    @Test func aTerminalWithoutALocalCloneSaysSoAndPrintsTheCloneCommand() async throws {
        let harness = try InProcessHarness()
        await harness.service.offer(ActivityContent(type: "org.handoff.terminal", title: "handoff on main",
                                                    userInfo: ["cwd": "/home/me/src/handoff", "gitPath": "",
                                                               "gitRemote": "git@github.com:acme/handoff.git",
                                                               "gitBranch": "main", "lastCommand": "make test"]),
                                    from: "laptop", age: 1, id: "term")
        #expect(await harness.run(["continue"]) == 0)
        #expect(harness.error.contains("terminal from laptop: handoff on main"))
        #expect(harness.error.contains("no local clone of github.com/acme/handoff in \(harness.home)/src"))
        #expect(harness.output == "git clone -- 'git@github.com:acme/handoff.git' && cd 'handoff'\n"
            + "# last command, not run: make test\n")
    }

    @Test func watchNamesTheKind() async throws {
        let harness = try InProcessHarness()
        let summary = ActivitySummary(id: ActivityID(rawValue: "c"), type: "org.handoff.clipboard", title: "",
                                      device: "laptop", age: 0, size: 0)
        await harness.service.setEvents([ActivityEvent(.appeared, summary)])
        #expect(await harness.run(["watch"]) == 0)
        #expect(harness.output == "available: clipboard from laptop\n")
    }
}
