import BlueZ
import BlueZTestSupport
import DBus
import Foundation
import HandoffBlueZ
import HandoffKit
import HandoffShared
import Testing

/// Issue 14 §2 on bluezoo: a PSM read refused as if bluetoothd's cached attribute table of the peer were stale
/// (bluetoothd 5.66 keeps such a table when a peer's Database Hash matches the cached one) makes the connect
/// forget the device and resolve its services afresh before it hands out a link, so the engine's first write goes
/// to the right handle.
@Suite(.serialized) struct StaleCacheTests {
    @Test func aRefusedPSMReadForgetsTheDeviceAndConnectsAfresh() async throws {
        try await withBluezoo { zoo in
            var options = BlueZRadioOptions()
            options.discoverable = true           // bluezoo reports discoverable advertisements only
            options.unknownPeerWait = .seconds(20)
            let peerBus = try await zoo.connect()
            let a = try await zoo.connect()
            let b = try await zoo.connect()
            let source = try await BlueZRadio(adapter: "hci0", bluez: a, options: options)
            let target = try await BlueZRadio(adapter: "hci1", bluez: b, options: options)

            // A peer whose PSM characteristic answers the first read as an attribute that is not readable (what the
            // request characteristic's handle does when a stale table names it the PSM's), and 0 (none) afterwards.
            let reads = Locked(0)
            let writes = Locked<[Data]>([])
            let uuid = { (wire: WireUUID) in try #require(BluetoothUUID(wire.string)) }
            let application = GattApplication(services: [
                GattApplication.Service(uuid: try uuid(WireProtocol.transferServiceUUID), characteristics: [
                    .init(uuid: try uuid(WireProtocol.requestCharacteristicUUID), flags: [.write],
                          onWrite: { value, _ in writes.withLock { $0.append(value) } }),
                    .init(uuid: try uuid(WireProtocol.dataCharacteristicUUID), flags: [.notify]),
                    .init(uuid: try uuid(WireProtocol.psmCharacteristicUUID), flags: [.read], onRead: { _ in
                        let count = reads.withLock { count -> Int in
                            count += 1
                            return count
                        }
                        if count == 1 { throw BlueZError(.notPermitted, "Read not permitted") }
                        return Data([0, 0])
                    }),
                ]),
            ])
            let registration = try await peerBus.register(application, on: try await peerBus.waitForAdapter(named: "hci0"))
            let events = try await target.scan()
            try await source.advertise(testBeacon(0x51))
            let peer = try await first(events, "the beacon").peer
            let removals = try await peerBus.connection.signals(matching: MatchRule.signal(
                interface: "org.freedesktop.DBus.ObjectManager", member: "InterfacesRemoved"))

            // bluezoo 1.0.2 cannot connect to a device a second time (Connect re-exports the mirrored GATT objects
            // and fails with EEXIST, Docs/bluez.md), so the fresh connection may fail there; what must hold is that the
            // refused read made the radio forget the device rather than hand out a link on the stale table.
            let outcome: Result<any RadioLink, any Error>
            do {
                outcome = .success(try await target.connect(to: peer))
            } catch {
                outcome = .failure(error)
            }
            #expect(reads.withLock { $0 } >= 1)
            // The removal comes, or `first` throws TimedOut.
            _ = try await first(removals, "the device's removal") { message in
                guard let arguments = try? message.arguments(), arguments.count == 2,
                      (try? ObjectPath(dbusValue: arguments[0]))?.rawValue == peer.rawValue else { return false }
                return (try? [String](dbusValue: arguments[1]))?.contains("org.bluez.Device1") == true
            }
            switch outcome {
            case .success(let link):
                #expect(reads.withLock { $0 } == 2, "the PSM was not read again after the refusal")
                #expect(link.transport.fallback == .notPublished)
                #expect(link.setup.filter { $0.name == "connect" }.count
                        == 2, "the link was not made on a fresh connection: \(link.setup.map(\.name))")
                try await link.write([0x07])
                #expect(writes.withLock { $0 } == [Data([0x07])])
                await link.disconnect()
            case .failure(let error as RadioError):
                #expect(!(error.message.contains("Read not permitted")), "the stale refusal reached the caller: \(error)")
            case .failure(let error):
                Issue.record("not a RadioError: \(error)")
            }
            await registration.cancel()
        }
    }
}
