import DBus
import Foundation
import Testing

@testable import BlueZ
import BlueZTestSupport
import HandoffShared

/// Tier 1: the BlueZ layer against bluezoo with two adapters. bluezoo emulates adapters, advertising, discovery,
/// connections and GATT forwarding; it does not emulate radio timing, MTU negotiation (it reports 512 unless the
/// server exports MTU) or pairing with an IO capability other than NoInputNoOutput (see Docs/bluez-api.md).
@Suite("BlueZ layer on bluezoo (tier 1)", .serialized, .timeLimit(.minutes(2)))
struct BluezooTests {
    static let company: UInt16 = 0xFFFF
    static let serviceUUID = BluetoothUUID("6a1d0001-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let writeUUID = BluetoothUUID("6a1d0002-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let notifyUUID = BluetoothUUID("6a1d0003-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let readUUID = BluetoothUUID("6a1d0004-8f4e-4a5b-9c1e-5b0d7c7e0001")!

    @Test("adapters are listed, picked by name and address, powered, and report advertising instances")
    func adapters() async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let names = await bluez.adapters().map(\.name)
            #expect(names == ["hci0", "hci1"])
            let byName = try await bluez.adapter(named: "hci1")
            let byAddress = try await bluez.adapter(named: BluezooFixture.hci1Address)
            #expect(byName == byAddress)
            try await byName.setPowered(true)
            let props = try await byName.properties()
            #expect(props.powered && props.canAdvertise && props.canServeGatt)
            #expect(props.supportedInstances == 15 && props.activeInstances == 0)
            #expect(props.maxAdvertisingLength == 31)
            await #expect(throws: BlueZError.self) { try await bluez.adapter(named: "hci7") }
        }
    }

    @Test("an advertisement with manufacturer and service data on hci0 is discovered on hci1, then updated")
    func advertiseAndDiscover() async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let hci0 = try await bluez.adapter(named: "hci0")
            let hci1 = try await bluez.adapter(named: "hci1")
            let ad = LEAdvertisement(
                serviceUUIDs: [Self.serviceUUID], manufacturerData: [Self.company: Data([1, 2, 3])],
                serviceData: [Self.serviceUUID: Data([9, 8])], localName: "handoff-test", discoverable: true,
                minInterval: 100, maxInterval: 150)
            let registration = try await bluez.register(ad, on: hci0)
            #expect(try await hci0.advertisingInstances().active == 1)

            let scan = try await hci1.scan(filter: DiscoveryFilter(manufacturerID: Self.company))
            let deadline = Task { try await Task.sleep(for: .seconds(20)); scan.stop() }
            defer { deadline.cancel() }
            var seen: Device1.Properties?
            var updated = false
            for await event in scan {
                switch event {
                case .appeared(let device):
                    seen = device
                    #expect(device.address == BluetoothAddress(BluezooFixture.hci0Address))
                    #expect(device.manufacturerData[Self.company] == Data([1, 2, 3]))
                    #expect(device.serviceData[Self.serviceUUID] == Data([9, 8]))
                    var next = ad
                    next.manufacturerData = [Self.company: Data([4, 5, 6])]
                    try await registration.update(next)
                case .updated(let device, _):
                    if device.manufacturerData[Self.company] == Data([4, 5, 6]) { updated = true }
                case .gone, .heardAgain:
                    break
                }
                if updated { scan.stop() }
            }
            #expect(seen != nil)
            #expect(updated, "the PropertiesChanged update reached the scanner")
            await registration.cancel()
            #expect(try await hci0.advertisingInstances().active == 0)
        }
    }

    @Test("running out of advertising instances is a clear NotPermitted error")
    func notPermitted() async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let hci0 = try await bluez.adapter(named: "hci0")
            var registrations: [AdvertisementRegistration] = []
            let supported = try await hci0.advertisingInstances().supported
            for index in 0..<supported {
                registrations.append(try await bluez.register(LEAdvertisement(localName: "ad\(index)"), on: hci0))
            }
            do throws(BlueZError) {
                _ = try await bluez.register(LEAdvertisement(localName: "one too many"), on: hci0)
                Issue.record("registration beyond SupportedInstances succeeded")
            } catch {
                #expect(error.code == .notPermitted)
                #expect(error.message.contains("no advertising instance left"))
            }
            for registration in registrations { await registration.cancel() }
        }
    }

    @Test("GATT from hci1 to hci0: connect, resolve, long read with offset, write, notify stream, 3 KB chunked")
    func gatt() async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let hci0 = try await bluez.adapter(named: "hci0")
            let hci1 = try await bluez.adapter(named: "hci1")
            let received = Locked<[Data]>([])
            let longValue = Data((0..<400).map { UInt8($0 % 251) })
            let app = GattApplication(services: [
                .init(uuid: Self.serviceUUID, characteristics: [
                    .init(uuid: Self.writeUUID, flags: [.write, .writeWithoutResponse],
                          onWrite: { value, _ in received.withLock { $0.append(value) } }),
                    .init(uuid: Self.notifyUUID, flags: [.notify]),
                    .init(uuid: Self.readUUID, flags: [.read],
                          descriptors: [.constant(BluetoothUUID(short: 0x2901), Data("long".utf8))],
                          onRead: { request in try longValue.reading(from: request.offset) }),
                ])
            ])
            let server = try await bluez.register(app, on: hci0)
            let advertisement = LEAdvertisement(serviceUUIDs: [Self.serviceUUID], discoverable: true)
            _ = try await bluez.register(advertisement, on: hci0)

            let scan = try await hci1.scan(filter: DiscoveryFilter(uuids: [Self.serviceUUID]))
            let deadline = Task { try await Task.sleep(for: .seconds(20)); scan.stop() }
            defer { deadline.cancel() }
            var found: Device1?
            for await event in scan {
                if case .appeared(let props) = event {
                    found = await bluez.device(at: props.path)
                    scan.stop()
                }
            }
            let device = try #require(found)
            try await device.connect()
            try await device.waitUntilServicesResolved()
            #expect(await device.services().contains(Self.serviceUUID))

            let read = try await device.characteristic(Self.readUUID, service: Self.serviceUUID)
            #expect(try await read.read() == longValue)
            #expect(try await read.read(offset: 100) == longValue.dropFirst(100))

            let write = try await device.characteristic(Self.writeUUID)
            try await write.write(Data([0xAB]), type: .request)
            try await write.write(Data([0xCD]), type: .command)
            #expect(received.value == [Data([0xAB]), Data([0xCD])])

            let notify = try await device.characteristic(Self.notifyUUID)
            let values = try await notify.notifications()
            try await bluez.wait(timeout: .seconds(5), "subscription") { _ in server.isNotifying(Self.notifyUUID) }
            #expect(try server.notify(Self.notifyUUID, value: Data([1])))
            #expect(try server.notify(Self.notifyUUID, value: Data([2])))
            var got: [Data] = []
            for await value in values {
                got.append(value)
                if got.count == 2 { break }
            }
            #expect(got == [Data([1]), Data([2])])

            let big = Data((0..<3072).map { UInt8(truncatingIfNeeded: $0 * 7) })
            received.withLock { $0.removeAll() }
            let writes = try await write.writeChunked(big, mtu: 517)
            var reassembler = ChunkedValue.Reassembler()
            var whole: Data?
            for chunk in received.value { whole = try reassembler.append(chunk) ?? whole }
            #expect(writes == 13, "3 KB + 4-byte header in 244-byte chunks")
            #expect(whole == big)

            try await device.disconnect()
            #expect(try await device.properties().connected == false)
            await server.cancel()
        }
    }

    @Test("an Agent1 is registered and Device1.Pair pairs hci1 with hci0")
    func pairing() async throws {
        try await BluezooFixture.withBlueZ { bluez in
            let hci0 = try await bluez.adapter(named: "hci0")
            let hci1 = try await bluez.adapter(named: "hci1")
            let agent = try await bluez.register(Agent(capability: .noInputNoOutput))
            _ = try await bluez.register(LEAdvertisement(localName: "pair-me", discoverable: true), on: hci0)
            let scan = try await hci1.scan()
            let deadline = Task { try await Task.sleep(for: .seconds(20)); scan.stop() }
            defer { deadline.cancel() }
            var found: Device1?
            for await event in scan {
                if case .appeared(let props) = event, props.address == BluetoothAddress(BluezooFixture.hci0Address) {
                    found = await bluez.device(at: props.path)
                    scan.stop()
                }
            }
            let device = try #require(found)
            try await device.pair()
            try await bluez.wait(timeout: .seconds(5), "Paired") { tree in
                PropertyBag(tree.properties(device.path, BlueZNames.device1) ?? [:]).bool("Paired") == true
            }
            #expect(try await device.properties().paired)
            await bluez.unregisterAgent(agent)
        }
    }

    @Test("attributes refuse what they have no handler for, with BlueZ's error names")
    func refuseByDefault() async throws {
        let request = GattRequest()
        let refusal = GattRefusal.unsupported("read")
        #expect(refusal.name?.rawValue == "org.bluez.Error.NotSupported")
        await #expect(throws: DBusError.self) {
            _ = try await GattRefusal.answering { () async throws -> Data in
                throw BlueZError(.notPermitted, "read is not permitted: \(request.offset)")
            }
        }
        do {
            _ = try await GattRefusal.answering { () async throws -> Data in throw BlueZError(.invalidOffset, "x") }
        } catch let error as DBusError {
            #expect(error.name?.rawValue == "org.bluez.Error.InvalidOffset")
        }
    }

    @Test("when bluezoo is killed and restarted, the advertisement and GATT application come back by themselves")
    func resilience() async throws {
        let zoo = try BluezooFixture()
        defer { zoo.stop() }
        let bluez = try await zoo.connect()
        defer { Task { await bluez.close() } }
        let hci0 = try await bluez.adapter(named: "hci0")
        let advertisement = try await bluez.register(LEAdvertisement(localName: "survivor"), on: hci0)
        let app = try await bluez.register(GattApplication(services: [
            .init(uuid: Self.serviceUUID, characteristics: [.init(uuid: Self.notifyUUID, flags: [.notify])])
        ]), on: hci0)
        let generation = await bluez.generation

        try await zoo.killBluezoo()
        try await bluez.wait(timeout: .seconds(10), "org.bluez to vanish") { tree in tree.objects.isEmpty }
        #expect(await advertisement.isActive() == false)

        try zoo.startBluezoo()
        let uuid = Self.serviceUUID.string
        try await bluez.wait(timeout: .seconds(20), "the application to be registered again") { tree in
            PropertyBag(tree.properties("/org/bluez/hci0", BlueZNames.adapter1) ?? [:]).strings("UUIDs").contains(uuid)
        }
        try await bluez.wait(timeout: .seconds(20), "the advertisement to be registered again") { tree in
            PropertyBag(tree.properties("/org/bluez/hci0", BlueZNames.leAdvertisingManager1) ?? [:])
                .integer("ActiveInstances") == 1
        }
        #expect(await eventually { await advertisement.isActive() })
        #expect(await eventually { await app.isActive() })
        #expect(await eventually { await bluez.generation > generation }, "the mirror was rebuilt from GetManagedObjects")
        await advertisement.cancel()
        await app.cancel()
    }
}

/// Polls `condition` for up to five seconds (for state that follows a reply racing with a signal).
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<50 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return false
}
