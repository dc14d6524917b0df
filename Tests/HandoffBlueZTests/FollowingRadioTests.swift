import BlueZ
import BlueZTestSupport
import DBus
import HandoffBlueZ
import HandoffKit
import HandoffShared
import HandoffTesting
import Testing

/// The radio that follows the adapter (``FollowingBlueZRadio``) on bluezoo, whose adapters are plugged in and out
/// while it runs (`org.bluezoo.Manager1`). What a user notices: after the move a peer on another adapter sees our
/// beacon again, we keep seeing theirs on the scan stream that was open, under the same peer name, the transfer
/// service answers there, and the radio says which adapter it uses.
@Suite("The radio follows the adapter", .serialized, .timeLimit(.minutes(3)))
struct FollowingRadioTests {
    static let ours = BluezooFixture.hci0Address
    static let spare = BluezooFixture.hci1Address
    static let peerAddress = "00:AA:01:02:00:02"

    @Test("--adapter by address: unplugged, there is none; back as hci2, the beacon, the scan and the service follow")
    func theDongleComesBackUnderAnotherIndex() async throws {
        try await Self.withBluezoo { zoo, notices in
            let radio = await FollowingBlueZRadio.follow(.named(Self.ours), bluez: try await zoo.connect(),
                                                         options: Self.options(notices))
            let peer = try await BlueZRadio(adapter: "hci1", bluez: try await zoo.connect(), options: Self.options())
            #expect(await radio.adapterInUse()?.name == "hci0")

            let scan = try await radio.scan()
            let service = try await radio.openTransferService()
            try await radio.advertise(testBeacon(0x11))
            let peerScan = try await peer.scan()
            let heard = try await first(peerScan, "our beacon on hci1") { $0.beacon == testBeacon(0x11) }
            try await peer.advertise(testBeacon(0x21))
            let theirs = try await first(scan, "the peer's beacon") { $0.beacon == testBeacon(0x21) }
            #expect(theirs.peer == PeerAddress(Self.spare), "a peer is named by its address, not a device path")

            try await zoo.fixture.removeAdapter(index: 0)
            try await Self.until("no adapter in use") { await radio.adapterInUse() == nil }
            #expect(await radio.choice.summary == "waiting for --adapter \(Self.ours)")
            do {
                _ = try await radio.connect(to: theirs.peer)
                Issue.record("a connect without an adapter succeeded")
            } catch let error as RadioError {
                #expect(error.kind == .unreachable)
                #expect(error.message.contains("no Bluetooth adapter is in use"), "\(error.message)")
            }

            try await zoo.fixture.addAdapter(index: 2, address: Self.ours)
            try await Self.until("hci2 in use") { await radio.adapterInUse()?.name == "hci2" }
            #expect(await radio.adapterInUse()?.address == BluetoothAddress(Self.ours))
            #expect(notices.lines.contains { $0.contains("went away; no adapter") }, "\(notices.lines)")
            #expect(notices.lines.contains { $0.contains("is back as hci2") }, "\(notices.lines)")

            // The peer forgets the device it knew (bluezoo's Device1 keeps pointing at the adapter object that was
            // removed), and hears our current beacon again: advertised on hci2 without being asked again.
            let peerBlueZ = peer.bluez
            let stale = await peerBlueZ.device(at: try #require(ObjectPath(rawValue: heard.peer.rawValue)))
            try await peerBlueZ.adapter(named: "hci1").removeDevice(stale)
            let again = try await first(peerScan, "our beacon from hci2") { $0.beacon == testBeacon(0x11) }
            #expect(again.peer == heard.peer, "hci2 advertises from the same address")

            // The scan stream that was open goes on, and names the peer as before.
            try await peer.advertise(testBeacon(0x22))
            let later = try await first(scan, "the peer's next beacon") { $0.beacon == testBeacon(0x22) }
            #expect(later.peer == theirs.peer)

            // The transfer service is published on hci2, and its writes stream is the one opened before the move.
            let link = try await peer.connect(to: again.peer)
            try await link.write([0x01, 0x02, 0x03])
            let write = try await first(service.writes, "the write on hci2") { $0.value == [0x01, 0x02, 0x03] }
            #expect(write.central.rawValue.hasPrefix("/org/bluez/hci2/"))
            try await service.notify([0x04], to: write.central)
            #expect(try await first(link.notifications, "the notification") == [0x04])

            await link.disconnect()
            await service.close()
            await radio.close()
            await peer.close()
        }
    }

    @Test("without --adapter: the default goes away, a spare stands in; the default back, it is used again")
    func aSpareStandsInUntilTheDefaultIsBack() async throws {
        try await Self.withBluezoo { zoo, notices in
            try await zoo.fixture.addAdapter(index: 2, address: Self.peerAddress)
            let peer = try await BlueZRadio(adapter: "hci2", bluez: try await zoo.connect(), options: Self.options())
            let radio = await FollowingBlueZRadio.follow(.automatic, bluez: try await zoo.connect(),
                                                         options: Self.options(notices))
            #expect(await radio.adapterInUse()?.name == "hci0")
            #expect(await radio.choice.summary == "BlueZ's default")

            let scan = try await radio.scan()
            try await radio.advertise(testBeacon(0x31))
            let peerScan = try await peer.scan()
            _ = try await first(peerScan, "our beacon from hci0") {
                $0.beacon == testBeacon(0x31) && $0.peer.rawValue.hasSuffix(Self.element(Self.ours))
            }
            try await peer.advertise(testBeacon(0x41))
            let theirs = try await first(scan, "the peer's beacon") { $0.beacon == testBeacon(0x41) }

            try await zoo.fixture.removeAdapter(index: 0)
            try await Self.until("hci1 standing in") { await radio.adapterInUse()?.name == "hci1" }
            #expect(await radio.choice.summary == "in place of \(Self.ours) (away)")
            #expect(notices.lines.contains { $0.contains("adapter hci0 (\(Self.ours)) went away; using hci1") },
                    "\(notices.lines)")
            _ = try await first(peerScan, "our beacon from hci1") {
                $0.beacon == testBeacon(0x31) && $0.peer.rawValue.hasSuffix(Self.element(Self.spare))
            }
            try await peer.advertise(testBeacon(0x42))
            let standIn = try await first(scan, "the peer's beacon, heard on hci1") { $0.beacon == testBeacon(0x42) }
            #expect(standIn.peer == theirs.peer)

            try await zoo.fixture.addAdapter(index: 3, address: Self.ours)
            try await Self.until("the default back, as hci3") { await radio.adapterInUse()?.name == "hci3" }
            #expect(await radio.choice.summary == "the first one used (BlueZ's default is now hci1)")
            #expect(notices.lines.contains { $0.contains("is back as hci3; using it again in place of hci1") },
                    "\(notices.lines)")
            try await radio.advertise(testBeacon(0x32))
            _ = try await first(peerScan, "our new beacon from hci3") {
                $0.beacon == testBeacon(0x32) && $0.peer.rawValue.hasSuffix(Self.element(Self.ours))
            }
            try await peer.advertise(testBeacon(0x43))
            let back = try await first(scan, "the peer's beacon, heard on hci3") { $0.beacon == testBeacon(0x43) }
            #expect(back.peer == theirs.peer)

            await radio.close()
            await peer.close()
        }
    }

    @Test("bluetoothd killed and started again: the adapter in use carries on, nothing moves")
    func bluetoothdRestartsMoveNothing() async throws {
        try await Self.withBluezoo { zoo, notices in
            let radio = await FollowingBlueZRadio.follow(.automatic, bluez: try await zoo.connect(),
                                                         options: Self.options(notices))
            let peer = try await BlueZRadio(adapter: "hci1", bluez: try await zoo.connect(), options: Self.options())
            let scan = try await radio.scan()
            try await radio.advertise(testBeacon(0x51))
            let peerScan = try await peer.scan()
            _ = try await first(peerScan, "our beacon") { $0.beacon == testBeacon(0x51) }

            try await zoo.fixture.killBluezoo()
            try await Self.until("bluetoothd gone") { await radio.bluez.owner == nil }
            #expect(await radio.adapterInUse()?.name == "hci0", "kept while bluetoothd is away")
            try zoo.fixture.startBluezoo()
            _ = try await first(peerScan, "our beacon, after the restart") { $0.beacon == testBeacon(0x51) }
            try await peer.advertise(testBeacon(0x61))
            _ = try await first(scan, "the peer's beacon on the scan opened before") { $0.beacon == testBeacon(0x61) }
            #expect(await radio.adapterInUse()?.name == "hci0")
            #expect(notices.lines.filter { !$0.hasPrefix("radio hci") }
                    == ["using hci0 (\(Self.ours)): BlueZ's default"], "\(notices.lines)")

            await radio.close()
            await peer.close()
        }
    }

    @Test("an activity listed before our adapter went away is continued through the one standing in")
    func anActivityListedBeforeTheMoveIsContinuedAfterIt() async throws {
        try await Self.withBluezoo { zoo, notices in
            try await zoo.fixture.addAdapter(index: 2, address: Self.peerAddress)
            let stores = try HandoffFixtures.pairedStores(["laptop", "desktop"])
            let laptop = try await RadioDevice.make(adapter: "hci2", bus: zoo.fixture.address, store: stores[0])
            let radio = await FollowingBlueZRadio.follow(.automatic, bluez: try await zoo.connect(),
                                                         options: Self.options(notices))
            var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
            configuration.beaconRotationInterval = nil
            configuration.stallInterval = .seconds(2)
            let desktop = try HandoffEngine(configuration: configuration, trust: stores[1], radio: radio,
                                            delegate: RecordingContinuationDelegate())
            try await desktop.start()

            let updates = await desktop.availabilityUpdates()
            let activity = UserActivity(activityType: noteType)
            activity.title = "Groceries"
            activity.userInfo = ["content": "milk, eggs"]
            try await activity.becomeCurrent(in: laptop.engine)
            let remote = try await first(updates, "the desktop to list the note")
            #expect(remote.peer == PeerAddress(Self.peerAddress))

            try await zoo.fixture.removeAdapter(index: 0)
            try await Self.until("hci1 standing in") { await radio.adapterInUse()?.name == "hci1" }
            let outcome = await desktop.continueActivity(remote)
            let continued = try #require(outcome.activity, "\(String(describing: outcome.error))")
            #expect(continued.title == "Groceries")
            #expect(continued.userInfo["content"] == "milk, eggs")

            await desktop.stop()
            await radio.close()
            await laptop.shutDown()
        }
    }

    @Test("a peer continues from us after our adapter moved: our new address is tried when the old one fails")
    func aPeerContinuesFromUsAfterWeMoved() async throws {
        try await Self.withBluezoo { zoo, notices in
            try await zoo.fixture.addAdapter(index: 2, address: Self.peerAddress)
            let stores = try HandoffFixtures.pairedStores(["laptop", "desktop"])
            let radio = await FollowingBlueZRadio.follow(.automatic, bluez: try await zoo.connect(),
                                                         options: Self.options(notices))
            var configuration = HandoffConfiguration(declaredTypes: try DeclaredActivityTypes([noteType]))
            configuration.beaconRotationInterval = nil
            configuration.stallInterval = .seconds(2)
            let laptop = try HandoffEngine(configuration: configuration, trust: stores[0], radio: radio,
                                           delegate: RecordingContinuationDelegate())
            try await laptop.start()
            let desktop = try await RadioDevice.make(adapter: "hci2", bus: zoo.fixture.address, store: stores[1])

            let updates = await desktop.engine.availabilityUpdates()
            let activity = UserActivity(activityType: noteType)
            activity.title = "Groceries"
            activity.userInfo = ["content": "milk, eggs"]
            try await activity.becomeCurrent(in: laptop)
            let remote = try await first(updates, "the desktop to list the note")
            #expect(remote.peer.rawValue.hasSuffix(Self.element(Self.ours)))

            try await zoo.fixture.removeAdapter(index: 0)
            try await Self.until("hci1 standing in") { await radio.adapterInUse()?.name == "hci1" }
            // The desktop hears the same beacon from our new address: only a candidate for the gate
            // (Docs/protocol.md, "The gate"), tried once the address it knows fails.
            let hci2 = try await desktop.bluez.adapter(named: "hci2")
            try await Self.until("the desktop to hear us from hci1's address") {
                await hci2.devices().contains { $0.path.rawValue.hasSuffix(Self.element(Self.spare))
                    && $0.manufacturerData[WireProtocol.manufacturerID] != nil }
            }
            let outcome = await desktop.engine.continueActivity(remote)
            let continued = try #require(outcome.activity, "\(String(describing: outcome.error))")
            #expect(continued.userInfo["content"] == "milk, eggs")

            await laptop.stop()
            await radio.close()
            await desktop.shutDown()
        }
    }

    // MARK: Support

    /// The notice lines a radio wrote.
    final class Notices: Sendable {
        private let box = Locked<[String]>([])
        var lines: [String] { box.withLock { $0 } }
        func append(_ line: String) { box.withLock { $0.append(line) } }
    }

    /// Options for bluezoo (discoverable advertisements), a short settle time, and the notices into `notices`.
    static func options(_ notices: Notices? = nil) -> BlueZRadioOptions {
        var options = BlueZRadioOptions()
        options.discoverable = true
        options.unknownPeerWait = .seconds(5)
        options.adapterSettle = .milliseconds(300)
        if let notices { options.notice = { notices.append($0) } }
        return options
    }

    /// `dev_00_AA_…` for an address.
    static func element(_ address: String) -> String {
        BluetoothAddress(address)?.pathElement ?? address
    }

    /// Runs `body` with bluezoo (hci0 and hci1) and stops it, every connection included, whatever happens.
    static func withBluezoo(_ body: (BluezooSession, Notices) async throws -> Void) async throws {
        let zoo = try BluezooSession()
        do {
            try await body(zoo, Notices())
        } catch {
            await zoo.stop()
            throw error
        }
        await zoo.stop()
    }

    /// Returns once `condition` holds, checking every 50 ms; `TimedOut` after a generous guard (not a timing claim).
    static func until(_ what: String, _ condition: () async -> Bool) async throws {
        for _ in 0..<600 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TimedOut(what: what)
    }
}
