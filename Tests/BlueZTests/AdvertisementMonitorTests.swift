import DBus
import Foundation
import Testing

@testable import BlueZ

@Suite("Advertisement monitor: patterns as bluetoothd reads them, and the re-check of every device")
struct AdvertisementMonitorTests {
    static func device(manufacturer: [UInt16: [UInt8]] = [:], service: [UInt16: [UInt8]] = [:]) -> Device1.Properties {
        Device1.Properties(
            path: "/org/bluez/hci1/dev_00_AA_01_00_00_00", adapter: "/org/bluez/hci1",
            address: BluetoothAddress("00:AA:01:00:00:00")!, addressType: "public", name: nil, alias: nil, rssi: nil,
            txPower: nil, manufacturerData: manufacturer.mapValues { Data($0) },
            serviceData: Dictionary(uniqueKeysWithValues: service.map { (BluetoothUUID(short: $0.key), Data($0.value)) }),
            uuids: [], connected: false, servicesResolved: false, paired: false, bonded: false, trusted: false,
            blocked: false)
    }

    @Test("a manufacturer-data pattern is the company id little-endian, as on the air, then the prefix")
    func manufacturerPattern() {
        let pattern = AdvertisementMonitor.Pattern.manufacturerData(company: 0x004C, prefix: [0x10])
        #expect(pattern.adType == 0xFF)
        #expect(pattern.start == 0)
        #expect(pattern.content == [0x4C, 0x00, 0x10])
    }

    @Test("devices are re-checked against the patterns: ours match, a phone's and a shorter field do not")
    func recheck() {
        let monitor = AdvertisementMonitor(patterns: [
            .manufacturerData(company: 0xFFFF, prefix: [0x01]),
            AdvertisementMonitor.Pattern(adType: 0x16, content: [0x2C, 0xFE, 0x01]),
        ])
        #expect(monitor.matches(Self.device(manufacturer: [0xFFFF: [0x01] + Array(repeating: 7, count: 23)])))
        #expect(monitor.matches(Self.device(service: [0xFE2C: [0x01, 0x02]])))
        #expect(!monitor.matches(Self.device(manufacturer: [0x004C: [0x10, 0x05, 1, 2]])))
        #expect(!monitor.matches(Self.device(manufacturer: [0xFFFF: [0x02, 0x00]])))       // another version
        #expect(!monitor.matches(Self.device(manufacturer: [0xFFFF: []])))                  // too short to hold it
        #expect(!monitor.matches(Self.device()))
    }

    @Test("what bluetoothd would refuse is refused before anything is exported")
    func validation() {
        #expect(throws: BlueZError.self) { try AdvertisementMonitor(patterns: []).validate() }
        #expect(throws: BlueZError.self) {
            try AdvertisementMonitor(patterns: [AdvertisementMonitor.Pattern(adType: 0xFF, content: [])]).validate()
        }
        #expect(throws: BlueZError.self) {
            try AdvertisementMonitor(patterns: [.manufacturerData(company: 1)],
                                     rssi: .init(high: -90, highTimeout: 1, low: -60, lowTimeout: 5)).validate()
        }
        #expect(throws: Never.self) {
            try AdvertisementMonitor(patterns: [.manufacturerData(company: 0xFFFF, prefix: [1])]).validate()
        }
    }
}
