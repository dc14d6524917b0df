import DBus
import DBusTestSupport
import Foundation
import Testing

/// Well-known names, bus policy refusals and caller credentials, on a bus whose policy forbids one name.
@Suite final class BusNameTests {
    let bus = SharedBus(
        extraPolicy: #"<policy context="default"><deny own="org.handoff.Forbidden"/></policy>"#)
    deinit { bus.stop() }

    @Test func requestAndReleaseName() async throws {
        let bus = try self.bus.get()
        let first = try bus.connect()
        let second = try bus.connect()
        defer {
            first.close()
            second.close()
        }
        let result = try await first.requestName("org.handoff.Test.Owned")
        #expect(result == .primaryOwner)
        let again = try await first.requestName("org.handoff.Test.Owned")
        #expect(again == .alreadyOwner)
        let owner = try await second.owner(of: "org.handoff.Test.Owned")
        #expect(owner == first.uniqueName)
        do {
            try await second.requestName("org.handoff.Test.Owned")
            Issue.record("expected nameTaken")
        } catch {
            #expect(error.code == .nameTaken)
            #expect(error.message.contains("org.handoff.Test.Owned"))
        }
        let queued = try await second.requestName("org.handoff.Test.Owned", flags: [])
        #expect(queued == .inQueue)
        let released = try await first.releaseName("org.handoff.Test.Owned")
        #expect(released)
        let newOwner = try await first.owner(of: "org.handoff.Test.Owned")
        #expect(newOwner == second.uniqueName)
        let nobody = try await first.owner(of: "org.handoff.Test.Nobody")
        #expect(nobody == nil)
    }

    @Test func policyRefusalIsATypedError() async throws {
        let bus = try self.bus.get()
        let connection = try bus.connect()
        defer { connection.close() }
        do {
            try await connection.requestName("org.handoff.Forbidden")
            Issue.record("the policy should refuse")
        } catch {
            #expect(error.code == .accessDenied)
            #expect(error.name == .accessDenied)
            #expect(error.message.contains("org.handoff.Forbidden"), "\(error.message)")
        }
    }

    @Test func unixUserOfSender() async throws {
        try await self.bus.withServiceAndClient { service, client in
            let uid = try await service.unixUser(ofSender: client.uniqueName)
            #expect(uid == getuid())
            let pid = try await service.unixProcessID(ofSender: client.uniqueName)
            #expect(pid == UInt32(getpid()))
            do throws(DBusError) {
                _ = try await service.unixUser(ofSender: ":1.999999")
                Issue.record("expected an error for an absent sender")
            } catch {
                #expect(error.name == .nameHasNoOwner)
            }
        }
    }

    @Test func handlerSeesCallerAndCanCheckItsUser() async throws {
        try await self.bus.withServiceAndClient { service, client in
            var whoami = ExportedInterface("org.handoff.Test.WhoAmI")
            whoami.method("Who", out: "su") { [service] call in
                guard let sender = call.sender else { throw DBusError(name: .accessDenied, message: "no sender") }
                return [.string(sender.rawValue), .uint32(try await service.unixUser(ofSender: sender))]
            }
            try await service.export([whoami], at: "/org/handoff/test/whoami")
            let reply = try await client.call(
                destination: service.uniqueName, path: "/org/handoff/test/whoami", interface: "org.handoff.Test.WhoAmI",
                member: "Who")
            #expect(reply == [.string(client.uniqueName.rawValue), .uint32(getuid())])
        }
    }
}
