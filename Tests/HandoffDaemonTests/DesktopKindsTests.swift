import Foundation
import HandoffClient
import HandoffDaemon
import HandoffKit
import HandoffTesting
import Testing

/// Clipboard, web page and terminal activities through two daemons: declared, so offered and continued like
/// notes, with the rules the daemon adds (a clipboard's lifetime, a web page's webpageURL).
@Suite(.serialized) struct DesktopKindsTests {
    @Test func handoffsOwnKindsAreDeclared() throws {
        let configuration = try DaemonConfiguration(stateDirectory: URL(fileURLWithPath: "/nonexistent"))
        for kind in ActivityKind.allCases {
            #expect(configuration.handoff.declaredTypes.contains(kind.type))
        }
    }

    @Test func aClipboardExpiresTwoMinutesAfterItIsOffered() throws {
        let activity = UserActivity(activityType: "org.handoff.clipboard")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try ActivityTypeRule.defaults["org.handoff.clipboard"]?.apply(to: activity, at: now)
        #expect(activity.expirationDate == now.addingTimeInterval(120))
        #expect(activity.webpageURL == nil)
    }

    @Test func aWebPagesURLIsItsWebpageURLAndIsRequired() throws {
        let rule = try #require(ActivityTypeRule.defaults["org.handoff.web"])
        let page = UserActivity(activityType: "org.handoff.web")
        page.userInfo = ["url": .string("https://example.org/a")]
        try rule.apply(to: page, at: Date())
        #expect(page.webpageURL == URL(string: "https://example.org/a"))
        #expect(page.expirationDate == nil)
        #expect(throws: (any Error).self) { try rule.apply(to: UserActivity(activityType: "org.handoff.web"), at: Date()) }
    }

    @Test func aWebPageWithoutURLIsRefusedByTheDaemon() async throws {
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let failure = await serviceError {
            _ = try await machines.laptop.client().setCurrentActivity(
                ActivityContent(type: "org.handoff.web", title: "t", userInfo: ["title": "no url"]))
        }
        #expect(failure?.remoteCode == "org.handoff.Error.InvalidArguments")
    }

    @Test func eachKindIsContinuedWithItsUserInfo() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try await machines.laptop.client()
        let desktop = try await machines.desktop.client()
        let contents = [
            ActivityContent(type: "org.handoff.clipboard", title: "Text, 2 characters",
                            userInfo: ["mediaType": "text/plain", "text": "hi"]),
            ActivityContent(type: "org.handoff.web", title: "Example", userInfo: ["url": "https://example.org/"]),
            ActivityContent(type: "org.handoff.terminal", title: "handoff on main",
                            userInfo: ["cwd": "/src/handoff", "gitRemote": "git@github.com:acme/handoff.git"]),
        ]
        for content in contents {
            _ = try await laptop.setCurrentActivity(content)
            let remote = try await eventually {
                try await desktop.availableActivities().first { $0.type == content.type }
            }
            let continued = try await desktop.continueActivity(remote.id) { _ in }
            #expect(continued.content == content)
        }
    }

    @Test func anExpiredClipboardIsNoLongerHandedOver() async throws {
        // The laptop's time is virtual: the clipboard's lifetime passes when the test says.
        let clock = VirtualClock()
        let machines = try await TwoMachines.make(laptop: {
            $0.typeRules["org.handoff.clipboard"] = ActivityTypeRule(lifetime: .milliseconds(300))
            $0.clock = clock
        })
        defer { Task { await machines.shutDown() } }
        _ = try await machines.laptop.client().setCurrentActivity(
            ActivityContent(type: "org.handoff.clipboard", title: "t", userInfo: ["mediaType": "text/plain", "text": "x"]))
        let desktop = try await machines.desktop.client()
        let remote = try await eventually { try await desktop.availableActivities().first }
        clock.advance(by: .milliseconds(300))
        let failure = await serviceError { _ = try await desktop.continueActivity(remote.id) { _ in } }
        #expect(failure?.code == .continueFailed)
        // Withdrawn at expiry (4608), or refused as expired if asked in the same instant (4616).
        #expect(["org.handoff.Error.HandoffFailed", "org.handoff.Error.ActivityExpired"].contains(failure?.remoteCode))
        #expect(try await machines.laptop.client().status().currentActivity == nil)
    }
}
