import DBus
import DBusTestSupport
import Testing

/// Signal emission, match-rule subscriptions and NameOwnerChanged watching.
@Suite final class SignalTests {
    let bus = SharedBus()
    deinit { bus.stop() }

    @Test func subscriptionReceivesOnlyMatchingSignals() async throws {
        let bus = try self.bus.get()
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
        #expect(message?.path == "/a/b")
        #expect(message?.sender == emitter.uniqueName)
        #expect(try message?.arguments().first == .string("wanted"))
    }

    @Test func wellKnownSenderFiltersOtherSenders() async throws {
        let bus = try self.bus.get()
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
        #expect(try first?.arguments() == [.uint32(1)])
        #expect(try second?.arguments() == [.uint32(2)])
        var owned = fromOwner.makeAsyncIterator()
        let onlyOwner = await owned.next()
        #expect(try onlyOwner?.arguments() == [.uint32(2)])
    }

    @Test func nameOwnerChangesFollowAServiceLeavingAndReturning() async throws {
        let bus = try self.bus.get()
        let watcher = try bus.connect()
        defer { watcher.close() }
        let changes = try await watcher.nameOwnerChanges(of: "org.handoff.Test.Restarting")
        var iterator = changes.makeAsyncIterator()

        let firstRun = try bus.connect()
        try await firstRun.requestName("org.handoff.Test.Restarting")
        let appeared = await iterator.next()
        #expect(appeared?.newOwner == firstRun.uniqueName)
        #expect(appeared?.oldOwner == nil)

        let firstName = firstRun.uniqueName
        firstRun.close()
        let vanished = await iterator.next()
        #expect(vanished?.oldOwner == firstName)
        #expect(vanished?.newOwner == nil)

        let secondRun = try bus.connect()
        defer { secondRun.close() }
        try await secondRun.requestName("org.handoff.Test.Restarting")
        let back = await iterator.next()
        #expect(back?.newOwner == secondRun.uniqueName)
    }

    @Test func streamsFinishWhenTheConnectionCloses() async throws {
        let bus = try self.bus.get()
        let listener = try bus.connect()
        let stream = try await listener.signals(matching: .signal(interface: "org.handoff.Test.Never"))
        listener.close()
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 0)
    }

    @Test func invalidMatchRuleIsRejectedByTheBus() async throws {
        let bus = try self.bus.get()
        let listener = try bus.connect()
        defer { listener.close() }
        var rule = MatchRule.signal()
        rule.arguments[64] = "too far"
        do {
            _ = try await listener.signals(matching: rule)
            Issue.record("expected MatchRuleInvalid")
        } catch {
            #expect(error.name == .matchRuleInvalid)
        }
    }
}
