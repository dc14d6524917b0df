import DBus
import DBusTestSupport
import XCTest

final class SmokeTests: XCTestCase {
    static let bus = SharedBus()
    override class func tearDown() { bus.stop() }

    func testEchoRoundTrip() async throws {
        let bus = try Self.bus.get()
        let service = try bus.connect()
        let client = try bus.connect()
        try await service.export([Echo.make(signatures: ["s"])], at: Echo.path)
        let reply = try await client.call(
            destination: service.uniqueName, path: Echo.path, interface: Echo.interface, member: "Echo0",
            arguments: [.string("hello")])
        XCTAssertEqual(reply, [.string("hello")])
    }
}
