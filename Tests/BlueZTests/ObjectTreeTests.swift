import DBus
import Foundation
import Testing

@testable import BlueZ

@Suite("The mirrored object tree, fed recorded signals")
struct ObjectTreeTests {
    let adapter: ObjectPath = "/org/bluez/hci0"
    let device: ObjectPath = "/org/bluez/hci0/dev_00_AA_01_01_00_24"

    func deviceProperties(rssi: Int16) -> [String: Variant] {
        [
            "Address": Variant("00:AA:01:01:00:24"), "RSSI": Variant(rssi), "Adapter": Variant(adapter),
            "ManufacturerData": Variant([UInt16(0xFFFF): Variant([UInt8]([1, 2, 3]))]),
            "ServiceData": Variant(["0000fe2c-0000-1000-8000-00805f9b34fb": Variant([UInt8]([9]))]),
        ]
    }

    @Test("snapshot, then added, changed and removed signals keep the mirror current")
    func lifecycle() throws {
        var tree = ObjectTree()
        tree.reset(to: [adapter: [BlueZNames.adapter1.rawValue: ["Powered": Variant(true), "Address": Variant("00:AA:01:00:00:23")]]])
        #expect(tree.paths(with: BlueZNames.adapter1) == [adapter])

        let added = tree.interfacesAdded(device, [BlueZNames.device1.rawValue: deviceProperties(rssi: -60)])
        #expect(added.map(\.kind) == [.added])
        let props = try #require(Device1.Properties(path: device, tree.properties(device, BlueZNames.device1) ?? [:]))
        #expect(props.rssi == -60)
        #expect(props.manufacturerData[0xFFFF] == Data([1, 2, 3]))
        #expect(props.serviceData[BluetoothUUID(short: 0xFE2C)] == Data([9]))

        let changed = tree.propertiesChanged(
            device, interface: BlueZNames.device1.rawValue, changed: ["RSSI": Variant(Int16(-40))], invalidated: ["Alias"])
        #expect(changed.first?.kind == .changed(["RSSI", "Alias"]))
        #expect(Device1.Properties(path: device, tree.properties(device, BlueZNames.device1) ?? [:])?.rssi == -40)
        #expect(tree.children(of: adapter) == [device])

        let removed = tree.interfacesRemoved(device, [BlueZNames.device1.rawValue])
        guard case .removed(let last) = removed.first?.kind else {
            Issue.record("expected a removed change")
            return
        }
        #expect(last["RSSI"] == Variant(Int16(-40)))
        #expect(tree.properties(device, BlueZNames.device1) == nil)
    }

    @Test("signals for unknown paths are tolerated and change nothing")
    func unknownPaths() {
        var tree = ObjectTree()
        let none = tree.propertiesChanged(device, interface: BlueZNames.device1.rawValue, changed: ["RSSI": Variant(Int16(1))],
                                          invalidated: [])
        #expect(none.isEmpty)
        #expect(tree.interfacesRemoved(device, [BlueZNames.device1.rawValue]).isEmpty)
        #expect(tree.objects.isEmpty)
    }

    @Test("clear reports every interface gone (bluetoothd left the bus)")
    func clear() {
        var tree = ObjectTree()
        tree.reset(to: [adapter: [BlueZNames.adapter1.rawValue: [:], BlueZNames.gattManager1.rawValue: [:]]])
        #expect(tree.clear().count == 2)
        #expect(tree.objects.isEmpty)
    }

    @Test("adapter properties include the advertising manager's capabilities")
    func adapterProperties() throws {
        let interfaces: [String: [String: Variant]] = [
            BlueZNames.adapter1.rawValue: ["Powered": Variant(true), "Address": Variant("00:AA:01:00:00:23")],
            BlueZNames.leAdvertisingManager1.rawValue: [
                "SupportedInstances": Variant(UInt8(15)), "ActiveInstances": Variant(UInt8(0)),
                "SupportedCapabilities": Variant(["MaxAdvLen": Variant(UInt8(31))]),
            ],
            BlueZNames.gattManager1.rawValue: [:],
        ]
        let props = try #require(Adapter1.Properties(path: adapter, interfaces: interfaces))
        #expect(props.name == "hci0")
        #expect(props.powered && props.canAdvertise && props.canServeGatt)
        #expect(props.supportedInstances == 15 && props.maxAdvertisingLength == 31)
    }

    @Test("the discovery filter re-check rejects devices other clients' filters let in")
    func filterRecheck() throws {
        let props = try #require(Device1.Properties(path: device, deviceProperties(rssi: -70)))
        #expect(DiscoveryFilter(uuids: [BluetoothUUID(short: 0xFE2C)]).matches(props))
        #expect(!DiscoveryFilter(uuids: [BluetoothUUID(short: 0x180D)]).matches(props))
        #expect(!DiscoveryFilter(rssi: -50).matches(props))
        #expect(DiscoveryFilter(manufacturerID: 0xFFFF).matches(props))
        #expect(!DiscoveryFilter(manufacturerID: 0x004C).matches(props))
    }

    @Test("an advertisement exports ManufacturerData as a{qv} and leaves absent properties out")
    func advertisementProperties() {
        let ad = LEAdvertisement(manufacturerData: [0xFFFF: Data([1, 2])],
                                 serviceData: [BluetoothUUID(short: 0xFE2C): Data([3])], localName: "handoff")
        let props = ad.properties
        #expect(props["ManufacturerData"]?.type == .dictionary(key: .uint16, value: .variant))
        #expect(props["ServiceData"]?.type == .dictionary(key: .string, value: .variant))
        #expect(props["Type"] == Variant("peripheral"))
        #expect(props["Timeout"] == nil && props["ServiceUUIDs"] == nil)
    }
}
