import DBus
import DBusTestSupport
import XCTest

/// Signal emission, match-rule subscriptions and NameOwnerChanged watching.
final class SignalTests: XCTestCase {
    static let bus = SharedBus()
    override class func tearDown() { bus.stop() }

    func testSubscriptionReceivesOnlyMatchingSignals() async throws {
        let bus = try Self.bus.get()
        let emitter = try bus.connect()
        let listener = try bus.connect()
        defer {
            emitter.close()
            listener.close()
        }
        let stream = try await listener.signals(
            matching: .signal(interface: "org.handoff.Test.Note1", member: "Edited").argument(0, "wanted"))
        // Emitted right after subscribing: the rule is already active, so nothing is lost.
        let note: InterfaceName = "org.handoff.Test.Note1"
        try emitter.emitSignal(path: "/a", interface: note, member: "Edited", arguments: [.string("other")])
        try emitter.emitSignal(path: "/a", interface: note, member: "Other", arguments: [.string("wanted")])
        try emitter.emitSignal(
            path: "/a/b", interface: "org.handoff.Test.Note1", member: "Edited",
            arguments: [.string("wanted"), .dictionary(key: .string, value: .variant, [])])
        var iterator = stream.makeAsyncIterator()
        let message = await iterator.next()
        XCTAssertEqual(message?.path, "/a/b")
        XCTAssertEqual(message?.sender, emitter.uniqueName)
        XCTAssertEqual(try message?.arguments().first, .string("wanted"))
    }

    func testWellKnownSenderFiltersOtherSenders() async throws {
        let bus = try Self.bus.get()
        let owner = try bus.connect()
        let impostor = try bus.connect()
        let listener = try bus.connect()
        defer {
            owner.close()
            impostor.close()
            listener.close()
        }
        try await owner.requestName("org.handoff.Test.Emitter")
        let fromOwner = try await listener.signals(
            matching: .signal(sender: "org.handoff.Test.Emitter", interface: "org.handoff.Test.Ticks"))
        let fromAnyone = try await listener.signals(matching: .signal(interface: "org.handoff.Test.Ticks"))
        let ticks: InterfaceName = "org.handoff.Test.Ticks"
        try impostor.emitSignal(path: "/t", interface: ticks, member: "Tick", arguments: [.uint32(1)])
        try owner.emitSignal(path: "/t", interface: ticks, member: "Tick", arguments: [.uint32(2)])

        var any = fromAnyone.makeAsyncIterator()
        let first = await any.next()
        let second = await any.next()
        XCTAssertEqual(try first?.arguments(), [.uint32(1)])
        XCTAssertEqual(try second?.arguments(), [.uint32(2)])
        var owned = fromOwner.makeAsyncIterator()
        let onlyOwner = await owned.next()
        XCTAssertEqual(try onlyOwner?.arguments(), [.uint32(2)])
    }

    func testNameOwnerChangesFollowAServiceLeavingAndReturning() async throws {
        let bus = try Self.bus.get()
        let watcher = try bus.connect()
        defer { watcher.close() }
        let changes = try await watcher.nameOwnerChanges(of: "org.handoff.Test.Restarting")
        var iterator = changes.makeAsyncIterator()

        let firstRun = try bus.connect()
        try await firstRun.requestName("org.handoff.Test.Restarting")
        let appeared = await iterator.next()
        XCTAssertEqual(appeared?.newOwner, firstRun.uniqueName)
        XCTAssertNil(appeared?.oldOwner)

        let firstName = firstRun.uniqueName
        firstRun.close()
        let vanished = await iterator.next()
        XCTAssertEqual(vanished?.oldOwner, firstName)
        XCTAssertNil(vanished?.newOwner)

        let secondRun = try bus.connect()
        defer { secondRun.close() }
        try await secondRun.requestName("org.handoff.Test.Restarting")
        let back = await iterator.next()
        XCTAssertEqual(back?.newOwner, secondRun.uniqueName)
    }

    func testStreamsFinishWhenTheConnectionCloses() async throws {
        let bus = try Self.bus.get()
        let listener = try bus.connect()
        let stream = try await listener.signals(matching: .signal(interface: "org.handoff.Test.Never"))
        listener.close()
        var count = 0
        for await _ in stream { count += 1 }
        XCTAssertEqual(count, 0)
    }

    func testInvalidMatchRuleIsRejectedByTheBus() async throws {
        let bus = try Self.bus.get()
        let listener = try bus.connect()
        defer { listener.close() }
        var rule = MatchRule.signal()
        rule.arguments[64] = "too far"
        do {
            _ = try await listener.signals(matching: rule)
            XCTFail("expected MatchRuleInvalid")
        } catch {
            XCTAssertEqual(error.name, .matchRuleInvalid)
        }
    }
}
