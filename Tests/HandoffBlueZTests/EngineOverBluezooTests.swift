@testable import HandoffKit
import BlueZ
import BlueZTestSupport
import Foundation
import HandoffBlueZ
import HandoffTesting
import Testing

/// Two HandoffEngines on bluezoo, one per adapter, each with its own BlueZ connection: the source (hci0) makes a
/// note current, the target (hci1) discovers it through a real scan and continues it over GATT.
///
/// What bluezoo 1.0.2 cannot show, and tier 2 (`handoff-radio-scenarios` in the VM) covers instead: ATT
/// fragmentation and a negotiated MTU (bluezoo forwards each value in one D-Bus call and reports MTU 512), link
/// loss and resumption (bluezoo's Disconnect leaves ServicesResolved set and a re-Connect re-exports the mirrored
/// services), bluetoothd restarts, a 1 MiB payload at real link speed, and pairing over BLE between adapters.
@Suite(.serialized) struct EngineOverBluezooTests {
    /// Runs `body` with a device of `stores[0]` on hci0 and one of `stores[1]` on hci1 of a bluezoo of its own, then
    /// shuts both down and stops bluezoo, whether `body` threw or not.
    private func withDevices<R>(_ stores: [TrustStore], configure: (inout HandoffConfiguration) -> Void = { _ in },
                                _ body: (RadioDevice, RadioDevice) async throws -> R) async throws -> R {
        let bus = try BluezooFixture()
        var devices: [RadioDevice] = []
        let result: Result<R, any Error>
        do {
            devices.append(try await RadioDevice.make(adapter: "hci0", bus: bus.address, store: stores[0],
                                                      configure: configure))
            devices.append(try await RadioDevice.make(adapter: "hci1", bus: bus.address, store: stores[1],
                                                      configure: configure))
            result = .success(try await body(devices[0], devices[1]))
        } catch {
            result = .failure(error)
        }
        for device in devices { await device.shutDown() }
        bus.stop()
        return try result.get()
    }

    /// ``withDevices(_:configure:_:)`` with a trusted source on hci0 and target on hci1.
    private func withTrustedPair<R>(configure: (inout HandoffConfiguration) -> Void = { _ in },
                                    _ body: (_ source: RadioDevice, _ target: RadioDevice) async throws -> R)
        async throws -> R {
        try await withDevices(try HandoffFixtures.pairedStores(["laptop", "desktop"]), configure: configure, body)
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
        #expect(remote.activityType == noteType)
        #expect(remote.device.name == "laptop")
        #expect(remote.peer.rawValue.hasPrefix("/org/bluez/hci1/dev_"), "\(remote.peer.rawValue)")
        return (activity, remote)
    }

    private func roundTrip(bytes: Int) async throws {
        try await withTrustedPair { source, target in
            let (_, remote) = try await offerNote(bytes: bytes, from: source, to: target)
            let started = ContinuousClock.now
            let outcome = await target.engine.continueActivity(remote)
            let elapsed = ContinuousClock.now - started
            let received = try #require(outcome.activity, "continue failed: \(String(describing: outcome.error))")
            #expect(received.activityType == noteType)
            #expect(received.title == "Groceries")
            if bytes == 0 {
                #expect(received.userInfo == [:])
            } else {
                #expect(received.userInfo["blob"] == .data(blob(bytes)))
                #expect(received.userInfo["content"] == "milk, eggs")
            }
            #expect(target.delegate.failures.isEmpty, "\(target.delegate.failures)")
            print("measure: bluezoo continue of \(bytes) B took \(elapsed)")
        }
    }

    @Test func continuesAnEmptyNoteOverGATT() async throws {
        try await roundTrip(bytes: 0)
    }

    @Test func continuesAThreeKilobyteNoteOverGATT() async throws {
        try await roundTrip(bytes: 3 * 1024)
    }

    @Test func continuesASixtyFourKilobyteNoteOverGATT() async throws {
        try await roundTrip(bytes: 64 * 1024)
    }

    @Test func aStrangerReceivesTheBeaconButCannotDecodeOrRequestIt() async throws {
        let stores = [try TrustStore.create(deviceName: "laptop"), try TrustStore.create(deviceName: "eve")]
        try await withDevices(stores) { source, stranger in
            let scanned = try await stranger.radio.scan()
            let strangerUpdates = await stranger.engine.availabilityUpdates()
            let activity = UserActivity(activityType: noteType)
            activity.userInfo = ["content": "do not leak"]
            try await activity.becomeCurrent(in: source.engine)

            // The stranger's radio hears the beacon, but its engine cannot open it: nothing becomes available.
            let heard = try await first(scanned, "the stranger to hear the beacon")
            #expect(heard.beacon.count == WireProtocol.beaconLength)
            do {
                let leaked = try await first(strangerUpdates, "nothing", guardDelay: .seconds(3))
                Issue.record("a stranger decoded \(leaked)")
            } catch is TimedOut {}
            let available = await stranger.engine.availableActivities()
            #expect(available.isEmpty, "a stranger decoded \(available)")

            // Asking anyway, with the sequence it cannot know and a MAC it cannot make, gets untrustedPeer and no payload.
            let last = await source.engine.lastSequence
            let sequence = try #require(last)
            let link = try await stranger.radio.connect(to: heard.peer)
            let forged = TransferFrame.request(sequence: sequence, nonce: Nonce(bytes: [1, 2, 3, 4, 5, 6, 7, 8])!,
                                               mac: [UInt8](repeating: 0xAA, count: 16))
            try await link.write(forged.encoded())
            let reply = try await first(link.notifications, "the source's answer")
            guard case .error(_, let code, _, _) = try TransferFrame.decode(reply) else {
                Issue.record("a stranger's request got \(reply)")
                return
            }
            #expect(code == HandoffError.Code.untrustedPeer.rawValue)
            await link.disconnect()
        }
    }

    @Test func aRevokedDeviceCannotContinue() async throws {
        try await withTrustedPair { source, target in
            let (_, remote) = try await offerNote(bytes: 20_000, from: source, to: target)
            var store = await source.engine.trust
            _ = try store.revoke(target.store.identity.id)
            try await source.engine.updateTrust(store)
            let outcome = await target.engine.continueActivity(remote)
            #expect(outcome.error?.code == .untrustedPeer, "\(outcome)")
            #expect(target.delegate.failures.first?.activityType == noteType)
            #expect(target.delegate.failures.first?.error.code.rawValue == 4612)
        }
    }
}
