@testable import HandoffKit
import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffTesting
import XCTest

/// Two HandoffEngines on bluezoo, one per adapter, each with its own BlueZ connection: the source (hci0) makes a
/// note current, the target (hci1) discovers it through a real scan and continues it over GATT.
///
/// What bluezoo 1.0.2 cannot show, and tier 2 (`handoff-radio-scenarios` in the VM) covers instead: ATT
/// fragmentation and a negotiated MTU (bluezoo forwards each value in one D-Bus call and reports MTU 512), link
/// loss and resumption (bluezoo's Disconnect leaves ServicesResolved set and a re-Connect re-exports the mirrored
/// services), bluetoothd restarts, a 1 MiB payload at real link speed, and pairing over BLE between adapters.
final class EngineOverBluezooTests: XCTestCase {
    private var bus: BluezooFixture?
    private var devices: [RadioDevice] = []

    override func tearDown() async throws {
        for device in devices { await device.shutDown() }
        devices = []
        bus?.stop()
        bus = nil
    }

    /// A trusted source on hci0 and target on hci1.
    private func trustedPair(configure: (inout HandoffConfiguration) -> Void = { _ in }) async throws
        -> (source: RadioDevice, target: RadioDevice) {
        let bus = try BluezooFixture()
        self.bus = bus
        let stores = try HandoffFixtures.pairedStores(["laptop", "desktop"])
        let source = try await RadioDevice.make(adapter: "hci0", bus: bus.address, store: stores[0], configure: configure)
        let target = try await RadioDevice.make(adapter: "hci1", bus: bus.address, store: stores[1], configure: configure)
        devices = [source, target]
        return (source, target)
    }

    /// Makes a note with `bytes` of data current on the source and returns what the target discovered.
    private func offerNote(bytes: Int, from source: RadioDevice, to target: RadioDevice) async throws
        -> (UserActivity, RemoteActivity) {
        let updates = await target.engine.availabilityUpdates()
        let activity = UserActivity(activityType: noteType)
        activity.title = "Groceries"
        activity.userInfo = bytes == 0 ? [:] : ["content": "milk, eggs", "blob": .data(blob(bytes))]
        try await activity.becomeCurrent(in: source.engine)
        let remote = try await first(updates, "the target to discover the note")
        XCTAssertEqual(remote.activityType, noteType)
        XCTAssertEqual(remote.device.name, "laptop")
        XCTAssertTrue(remote.peer.rawValue.hasPrefix("/org/bluez/hci1/dev_"), remote.peer.rawValue)
        return (activity, remote)
    }

    private func roundTrip(bytes: Int) async throws {
        let (source, target) = try await trustedPair()
        let (_, remote) = try await offerNote(bytes: bytes, from: source, to: target)
        let started = ContinuousClock.now
        let outcome = await target.engine.continueActivity(remote)
        let elapsed = ContinuousClock.now - started
        let received = try XCTUnwrap(outcome.activity, "continue failed: \(String(describing: outcome.error))")
        XCTAssertEqual(received.activityType, noteType)
        XCTAssertEqual(received.title, "Groceries")
        if bytes == 0 {
            XCTAssertEqual(received.userInfo, [:])
        } else {
            XCTAssertEqual(received.userInfo["blob"], .data(blob(bytes)))
            XCTAssertEqual(received.userInfo["content"], "milk, eggs")
        }
        XCTAssertTrue(target.delegate.failures.isEmpty, "\(target.delegate.failures)")
        print("measure: bluezoo continue of \(bytes) B took \(elapsed)")
    }

    func testContinuesAnEmptyNoteOverGATT() async throws {
        try await roundTrip(bytes: 0)
    }

    func testContinuesAThreeKilobyteNoteOverGATT() async throws {
        try await roundTrip(bytes: 3 * 1024)
    }

    func testContinuesASixtyFourKilobyteNoteOverGATT() async throws {
        try await roundTrip(bytes: 64 * 1024)
    }

    func testAStrangerReceivesTheBeaconButCannotDecodeOrRequestIt() async throws {
        let bus = try BluezooFixture()
        self.bus = bus
        let source = try await RadioDevice.make(adapter: "hci0", bus: bus.address,
                                                store: try TrustStore.create(deviceName: "laptop"))
        let stranger = try await RadioDevice.make(adapter: "hci1", bus: bus.address,
                                                  store: try TrustStore.create(deviceName: "eve"))
        devices = [source, stranger]
        let scanned = try await stranger.radio.scan()
        let strangerUpdates = await stranger.engine.availabilityUpdates()
        let activity = UserActivity(activityType: noteType)
        activity.userInfo = ["content": "do not leak"]
        try await activity.becomeCurrent(in: source.engine)

        // The stranger's radio hears the beacon, but its engine cannot open it: nothing becomes available.
        let heard = try await first(scanned, "the stranger to hear the beacon")
        XCTAssertEqual(heard.beacon.count, WireProtocol.beaconLength)
        do {
            let leaked = try await first(strangerUpdates, "nothing", guardDelay: .seconds(3))
            XCTFail("a stranger decoded \(leaked)")
        } catch is TimedOut {}
        let available = await stranger.engine.availableActivities()
        XCTAssertTrue(available.isEmpty, "a stranger decoded \(available)")

        // Asking anyway, with the sequence it cannot know and a MAC it cannot make, gets untrustedPeer and no payload.
        let last = await source.engine.lastSequence
        let sequence = try XCTUnwrap(last)
        let link = try await stranger.radio.connect(to: heard.peer)
        let forged = TransferFrame.request(sequence: sequence, nonce: Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8])!,
                                           mac: [UInt8](repeating: 0xAA, count: 16))
        try await link.write(forged.encoded())
        let reply = try await first(link.notifications, "the source's answer")
        guard case .error(_, let code, _, _) = try TransferFrame.decode(reply) else {
            return XCTFail("a stranger's request got \(reply)")
        }
        XCTAssertEqual(code, HandoffError.Code.untrustedPeer.rawValue)
        await link.disconnect()
    }

    func testARevokedDeviceCannotContinue() async throws {
        let (source, target) = try await trustedPair()
        let (_, remote) = try await offerNote(bytes: 20_000, from: source, to: target)
        var store = await source.engine.trust
        _ = try store.revoke(target.store.identity.id)
        try await source.engine.updateTrust(store)
        let outcome = await target.engine.continueActivity(remote)
        XCTAssertEqual(outcome.error?.code, .untrustedPeer, "\(outcome)")
        XCTAssertEqual(target.delegate.failures.first?.activityType, noteType)
        XCTAssertEqual(target.delegate.failures.first?.error.code.rawValue, 4612)
    }
}
