import DBus
import DBusTestSupport
import Foundation
import HandoffShared
import Testing

/// Failures a user would notice: standard error names, readable InvalidArgs, peers that vanish, bad values.
@Suite final class ErrorTests {
    let bus = SharedBus()

    private var connections: [Connection] = []

    deinit {
        for connection in connections { connection.close() }
        bus.stop()
    }

    /// Exports `org.handoff.Test.Slow.Hang` at `/org/handoff/test/slow` on `service`: it answers after 60 s. The
    /// count of calls that reached it.
    private func exportHang(on service: Connection) async throws -> Locked<Int> {
        let arrived = Locked(0)
        var slow = ExportedInterface("org.handoff.Test.Slow")
        slow.method("Hang") { _ in
            arrived.withLock { $0 += 1 }
            try await Task.sleep(for: .seconds(60))
            return []
        }
        try await service.export([slow], at: "/org/handoff/test/slow")
        return arrived
    }

    /// Two connections to the test bus, closed at tear-down.
    private func twoConnections() throws -> (service: Connection, client: Connection) {
        let bus = try self.bus.get()
        let service = try bus.connect()
        let client = try bus.connect()
        connections += [service, client]
        return (service, client)
    }

    /// A call on `client` fails with `disconnected`.
    private func assertCallFailsDisconnected(on client: Connection, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await client.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListNames")
            Issue.record("expected disconnected", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .disconnected, "\(error)", sourceLocation: sourceLocation)
        }
    }

    private func pair() async throws -> (service: Connection, client: Connection) {
        let (service, client) = try twoConnections()
        try await service.export([NoteService.make(title: Locked("t"), pings: Locked(0))], at: NoteService.path)
        return (service, client)
    }

    private func expectError(
        _ name: ErrorName, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async -> DBusError? {
        do {
            try await body()
            Issue.record("expected \(name)", sourceLocation: sourceLocation)
            return nil
        } catch let error as DBusError {
            #expect(error.name == name, "\(error)", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func unknownObjectInterfaceAndMethodGetStandardErrors() async throws {
        let (service, client) = try await pair()
        let destination = service.uniqueName
        _ = await expectError(.unknownObject) {
            _ = try await client.call(
                destination: destination, path: "/nothing/here", interface: NoteService.interface, member: "Describe")
        }
        _ = await expectError(.unknownInterface) {
            _ = try await client.call(
                destination: destination, path: NoteService.path, interface: "org.handoff.Nope", member: "Describe")
        }
        _ = await expectError(.unknownMethod) {
            _ = try await client.call(
                destination: destination, path: NoteService.path, interface: NoteService.interface, member: "Nope")
        }
        _ = await expectError(.unknownProperty) {
            _ = try await Proxy(connection: client, destination: destination, path: NoteService.path,
                                interface: NoteService.interface).property("Nope")
        }
        _ = await expectError(.propertyReadOnly) {
            try await Proxy(connection: client, destination: destination, path: NoteService.path,
                            interface: NoteService.interface).setProperty("Length", UInt32(3))
        }
    }

    @Test func wrongSignatureGetsInvalidArgsAndServiceKeepsServing() async throws {
        let (service, client) = try await pair()
        let proxy = Proxy(
            connection: client, destination: service.uniqueName, path: NoteService.path,
            interface: NoteService.interface)
        let error = await expectError(.invalidArgs) {
            try await proxy.call("Describe", .int32(1), .string("swapped"))
        }
        #expect(error?.message.contains("'su'") ?? false, "\(error?.message ?? "")")
        #expect(error?.message.contains("'is'") ?? false, "\(error?.message ?? "")")
        _ = await expectError(.invalidArgs) {
            try await proxy.setProperty("Title", UInt32(5))
        }
        let reply = try await proxy.call("Describe", .string("still"), .uint32(1))
        #expect(reply == [.string("still:1:t")])
    }

    @Test func handlerErrorsBecomeErrorReplies() async throws {
        let (service, client) = try await pair()
        let proxy = Proxy(
            connection: client, destination: service.uniqueName, path: NoteService.path,
            interface: NoteService.interface)
        let custom = await expectError("org.handoff.Error.NotPermitted") { try await proxy.call("Fail") }
        #expect(custom?.message == "no, thank you")
        #expect(custom?.code == .remote)
        _ = await expectError(.failed) { try await proxy.call("Crash") }
        let sum = try await proxy.call("Sum", .array(.int32, [.int32(2)]))
        #expect(sum == [.int64(2)])
    }

    @Test func peerThatExitsMidCallYieldsNoReply() async throws {
        let (service, client) = try twoConnections()
        let arrived = try await exportHang(on: service)
        let destination = service.uniqueName
        let call = Task { try await callHang(destination, from: client) }
        while arrived.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        service.close()
        do {
            _ = try await call.value
            Issue.record("the call should fail")
        } catch let error as DBusError {
            #expect(error.code == .noReply, "\(error)")
            #expect(error.name == .noReply)
        }
    }

    @Test func peerProcessKilledMidCallYieldsNoReply() async throws {
        let bus = try self.bus.get()
        let client = try bus.connect()
        connections.append(client)
        // A real peer process (dbus-python without a main loop): it is on the bus but never answers.
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        peer.arguments = [
            "-c",
            "import dbus, sys, time; b = dbus.bus.BusConnection(sys.argv[1]); print(b.get_unique_name(), flush=True); "
                + "time.sleep(60)",
            bus.address,
        ]
        let output = Pipe()
        peer.standardOutput = output
        try peer.run()
        defer { if peer.isRunning { peer.terminate() } }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let peerName = try BusName(text)
        let call = Task {
            try await client.call(destination: peerName, path: "/", interface: "org.handoff.X", member: "Y")
        }
        try await Task.sleep(for: .milliseconds(100))
        kill(peer.processIdentifier, SIGKILL)
        do {
            _ = try await call.value
            Issue.record("the call should fail")
        } catch let error as DBusError {
            #expect(error.code == .noReply, "\(error)")
        }
    }

    @Test func callingAnAbsentNameFailsAtOnce() async throws {
        let bus = try self.bus.get()
        let client = try bus.connect()
        connections.append(client)
        do {
            _ = try await client.call(
                destination: "org.handoff.Absent", path: "/", interface: "org.handoff.X", member: "Y")
            Issue.record("expected ServiceUnknown")
        } catch {
            #expect(error.name == .serviceUnknown)
        }
    }

    @Test func timeoutYieldsNoReply() async throws {
        let (service, client) = try twoConnections()
        _ = try await exportHang(on: service)
        do {
            _ = try await callHang(service.uniqueName, from: client, timeout: .milliseconds(100))
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == .noReply, "\(error)")
        }
    }

    @Test func aShortTimeoutExpiresBeforeAnEarlierLongerOne() async throws {
        let (service, client) = try twoConnections()
        let arrived = try await exportHang(on: service)
        let destination = service.uniqueName
        let finished = Locked(false)
        let long = Task {
            defer { finished.value = true }
            return try await callHang(destination, from: client, timeout: .seconds(20))
        }
        // The long call is armed first, so the short one must re-arm the connection's timer to an earlier time.
        while arrived.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        do {
            _ = try await callHang(destination, from: client, timeout: .milliseconds(100))
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == .noReply, "\(error)")
        }
        #expect(!finished.value, "the call with the later deadline must still be waiting")
        long.cancel()
        _ = await long.result
    }

    @Test func cancellingTheTaskCancelsTheCall() async throws {
        let (service, client) = try await pair()
        _ = try await exportHang(on: service)
        let destination = service.uniqueName
        let call = Task { try await callHang(destination, from: client) }
        try await Task.sleep(for: .milliseconds(20))
        call.cancel()
        await assertCancelled(call)
        // The connection still works.
        let reply = try await callSum(destination, from: client)
        #expect(reply == [.int64(0)])
    }

    @Test func aCallFromAnAlreadyCancelledTaskIsNeverSent() async throws {
        let (service, client) = try await pair()
        let arrived = try await exportHang(on: service)
        let destination = service.uniqueName
        let call = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await callHang(destination, from: client)
        }
        call.cancel()
        await assertCancelled(call)
        // The bus keeps one sender's messages in order, so had the cancelled call gone out, the service would have
        // seen it before this one.
        let before = service.statistics.methodCalls
        _ = try await callSum(destination, from: client)
        #expect(service.statistics.methodCalls == before + 1, "only the second call reached the service")
        #expect(arrived.value == 0)
    }

    @Test func theLateReplyToACancelledCallGoesNowhere() async throws {
        let (service, client) = try twoConnections()
        let release = AsyncStream<Void>.makeStream()
        var slow = ExportedInterface("org.handoff.Test.Late")
        slow.method("Wait", out: "s") { _ in
            for await _ in release.stream { break }
            return [.string("late")]
        }
        slow.method("Now", out: "s") { _ in [.string("now")] }
        try await service.export([slow], at: "/org/handoff/test/late")
        let destination = service.uniqueName
        func call(_ member: MemberName) async throws(DBusError) -> [Value] {
            try await client.call(
                destination: destination, path: "/org/handoff/test/late", interface: "org.handoff.Test.Late",
                member: member)
        }
        let waiting = Task { try await call("Wait") }
        while service.statistics.methodCalls == 0 { try await Task.sleep(for: .milliseconds(5)) }
        waiting.cancel()
        await assertCancelled(waiting)
        // The cancelled call's reply arrives now, before the next call's: each call still gets its own. Counted
        // from before the release: read after it, the late reply could already be in the count (seen under load).
        let repliesBefore = client.statistics.replies
        release.continuation.yield()
        let now = try await call("Now")
        #expect(now == [.string("now")])
        // The service answers "Wait" from a task of its own, so its reply may come just after "Now"'s (seen under
        // ThreadSanitizer): wait for it, up to 5 s, rather than assume the order.
        for _ in 0..<1000 where client.statistics.replies < repliesBefore + 2 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(client.statistics.replies == repliesBefore + 2, "the late reply arrived, and was dropped")
    }

    @Test func unreachableOrMalformedAddressesFailToConnect() {
        for address in ["unix:path=/nonexistent/handoff-bus", "bogus", ""] {
            if let error = #expect(throws: (any Error).self, "\(address)", performing: {
                try Connection(.address(address))
            }) {
                #expect((error as? DBusError)?.code == .connectionFailed, "\(error)")
                #expect(!((error as? DBusError)?.message.isEmpty ?? true))
            }
        }
    }

    @Test func closedConnectionFailsCleanly() async throws {
        let bus = try self.bus.get()
        let client = try bus.connect()
        client.close()
        client.close()
        #expect(client.isClosed)
        await assertCallFailsDisconnected(on: client)
        #expect(throws: (any Error).self) { try client.emitSignal(path: "/a", interface: "org.a.B", member: "C") }
    }

    @Test func busGoingAwayFailsPendingCallsAndEndsStreams() async throws {
        let bus = try PrivateBus()
        let client = try bus.connect()
        defer { client.close() }
        let stream = try await client.signals(matching: .signal(interface: "org.handoff.Never"))
        bus.stop()
        for await _ in stream {}
        await assertCallFailsDisconnected(on: client)
    }

    @Test func unexpectedValuesFromThirdPartyClientsDoNotCrashTheService() async throws {
        let bus = try self.bus.get()
        let (service, client) = try await pair()
        let name = service.uniqueName.rawValue
        let attempts: [[String]] = [
            ["Describe", "variant:int32:3"],
            ["Describe", "array:string:a,b", "uint32:1"],
            ["Sum", "dict:string:int32:a,1"],
            ["Sum"],
            ["Describe", "string:" + String(repeating: "x", count: 10_000), "uint32:4294967295"],
        ]
        for attempt in attempts {
            let result = try await bus.dbusSend(
                ["--print-reply", "--dest=\(name)", NoteService.path.rawValue, "org.handoff.Test.Note1." + attempt[0]]
                    + attempt.dropFirst())
            if attempt.count == 3, attempt[0] == "Describe", attempt[1].hasPrefix("string:") {
                #expect(result.succeeded, "\(result.error)")
            } else {
                #expect(!result.succeeded, "\(attempt)")
                #expect(result.error.contains("InvalidArgs"), "\(result.error)")
            }
        }
        // Typed reading of an unexpected reply shape is an error on the client side, not a crash.
        let proxy = Proxy(connection: client, destination: service.uniqueName, path: NoteService.path,
                          interface: NoteService.interface)
        do {
            _ = try await proxy.call("Sum", arguments: [.array(.int32, [])], returning: String.self)
            Issue.record("expected a type mismatch")
        } catch {
            #expect(error.code == .typeMismatch)
        }
    }
}

/// Calls `Sum` of ``NoteService`` with no numbers on `service` from `client`: a call that answers at once.
private func callSum(_ service: BusName, from client: Connection) async throws(DBusError) -> [Value] {
    try await client.call(
        destination: service, path: NoteService.path, interface: NoteService.interface, member: "Sum",
        arguments: [.array(.int32, [])])
}

/// Fails the test unless `task` ends with a `.cancelled` ``DBusError``.
private func assertCancelled<T: Sendable>(
    _ task: Task<T, any Error>, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do {
        _ = try await task.value
        Issue.record("expected cancellation", sourceLocation: sourceLocation)
    } catch let error as DBusError {
        #expect(error.code == .cancelled, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
}

/// Calls `Hang` (`ErrorTests.exportHang(on:)`) on `service` from `client`.
private func callHang(_ service: BusName, from client: Connection,
                      timeout: Duration? = nil) async throws(DBusError) -> [Value] {
    try await client.call(destination: service, path: "/org/handoff/test/slow",
                          interface: "org.handoff.Test.Slow", member: "Hang", timeout: timeout)
}
