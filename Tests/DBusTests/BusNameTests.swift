import DBus
import DBusTestSupport
import Foundation
import XCTest

/// Well-known names, bus policy refusals and caller credentials, on a bus whose policy forbids one name.
final class BusNameTests: XCTestCase {
    static let bus = SharedBus(
        extraPolicy: #"<policy context="default"><deny own="org.handoff.Forbidden"/></policy>"#)
    override class func tearDown() { bus.stop() }

    func testRequestAndReleaseName() async throws {
        let bus = try Self.bus.get()
        let first = try bus.connect()
        let second = try bus.connect()
        defer {
            first.close()
            second.close()
        }
        let result = try await first.requestName("org.handoff.Test.Owned")
        XCTAssertEqual(result, .primaryOwner)
        let again = try await first.requestName("org.handoff.Test.Owned")
        XCTAssertEqual(again, .alreadyOwner)
        let owner = try await second.owner(of: "org.handoff.Test.Owned")
        XCTAssertEqual(owner, first.uniqueName)
        do {
            try await second.requestName("org.handoff.Test.Owned")
            XCTFail("expected nameTaken")
        } catch {
            XCTAssertEqual(error.code, .nameTaken)
            XCTAssertTrue(error.message.contains("org.handoff.Test.Owned"))
        }
        let queued = try await second.requestName("org.handoff.Test.Owned", flags: [])
        XCTAssertEqual(queued, .inQueue)
        let released = try await first.releaseName("org.handoff.Test.Owned")
        XCTAssertTrue(released)
        let newOwner = try await first.owner(of: "org.handoff.Test.Owned")
        XCTAssertEqual(newOwner, second.uniqueName)
        let nobody = try await first.owner(of: "org.handoff.Test.Nobody")
        XCTAssertNil(nobody)
    }

    func testPolicyRefusalIsATypedError() async throws {
        let bus = try Self.bus.get()
        let connection = try bus.connect()
        defer { connection.close() }
        do {
            try await connection.requestName("org.handoff.Forbidden")
            XCTFail("the policy should refuse")
        } catch {
            XCTAssertEqual(error.code, .accessDenied)
            XCTAssertEqual(error.name, .accessDenied)
            XCTAssertTrue(error.message.contains("org.handoff.Forbidden"), error.message)
        }
    }

    func testUnixUserOfSender() async throws {
        try await Self.bus.withServiceAndClient { service, client in
            let uid = try await service.unixUser(ofSender: client.uniqueName)
            XCTAssertEqual(uid, getuid())
            let pid = try await service.unixProcessID(ofSender: client.uniqueName)
            XCTAssertEqual(pid, UInt32(getpid()))
            do throws(DBusError) {
                _ = try await service.unixUser(ofSender: ":1.999999")
                XCTFail("expected an error for an absent sender")
            } catch {
                XCTAssertEqual(error.name, .nameHasNoOwner)
            }
        }
    }

    func testHandlerSeesCallerAndCanCheckItsUser() async throws {
        try await Self.bus.withServiceAndClient { service, client in
            var whoami = ExportedInterface("org.handoff.Test.WhoAmI")
            whoami.method("Who", out: "su") { [service] call in
                guard let sender = call.sender else { throw DBusError(name: .accessDenied, message: "no sender") }
                return [.string(sender.rawValue), .uint32(try await service.unixUser(ofSender: sender))]
            }
            try await service.export([whoami], at: "/org/handoff/test/whoami")
            let reply = try await client.call(
                destination: service.uniqueName, path: "/org/handoff/test/whoami", interface: "org.handoff.Test.WhoAmI",
                member: "Who")
            XCTAssertEqual(reply, [.string(client.uniqueName.rawValue), .uint32(getuid())])
        }
    }
}
