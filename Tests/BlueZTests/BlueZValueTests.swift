import DBus
import Foundation
import Testing

@testable import BlueZ

@Suite("BlueZ values: UUIDs, addresses, errors")
struct BlueZValueTests {
    @Test("short and long UUIDs normalise to BlueZ's 128-bit lower-case form")
    func uuids() {
        #expect(BluetoothUUID("180D")?.string == "0000180d-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID("0x180d") == BluetoothUUID(short: 0x180D))
        #expect(BluetoothUUID("12345678-1234-5678-1234-56789ABCDEF0")?.string == "12345678-1234-5678-1234-56789abcdef0")
        #expect(BluetoothUUID("not-a-uuid") == nil)
        #expect(BluetoothUUID("") == nil)
    }

    @Test("addresses validate and map to BlueZ's dev_ path element")
    func addresses() {
        #expect(BluetoothAddress("00:aa:01:01:00:24")?.pathElement == "dev_00_AA_01_01_00_24")
        #expect(BluetoothAddress("00:AA:01:01:00") == nil)
        #expect(BluetoothAddress("zz:AA:01:01:00:00") == nil)
    }

    @Test("BlueZ error names become typed codes and keep their name")
    func remoteErrors() {
        let permitted = BlueZError(remoteName: "org.bluez.Error.NotPermitted", message: "Maximum advertisements reached")
        #expect(permitted.code == .notPermitted)
        #expect(permitted.name == "org.bluez.Error.NotPermitted")
        #expect(BlueZError(remoteName: "org.bluez.Error.InvalidLength", message: "").code == .invalidLength)
        let att = BlueZError(remoteName: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0x0e")
        #expect(att.code == .att(.unlikely))
        let foreign = BlueZError(remoteName: "org.freedesktop.DBus.Error.NoReply", message: "timeout")
        #expect(foreign.code == .bus)
        let abort = BlueZError(remoteName: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        #expect(abort.isConnectionAbortByLocal)
        // device_connect_le's answer when the kernel refused the connect (EBUSY: one LE attempt at a time).
        let refused = BlueZError(remoteName: "org.bluez.Error.Failed", message: "Input/output error")
        #expect(refused.isLocalConnectRefused && !refused.isConnectionAbortByLocal)
        #expect(!BlueZError(remoteName: "org.bluez.Error.Failed", message: "Software caused connection abort")
            .isLocalConnectRefused)
        #expect(BlueZError.Code.notSupported.errorName == "org.bluez.Error.NotSupported")
    }
}

@Suite("Advertisement size checks")
struct AdvertisementSizeTests {
    @Test("one oversized field is refused locally with InvalidLength naming it")
    func oversizedField() {
        let ad = LEAdvertisement(manufacturerData: [0xFFFF: Data(count: 28)])
        #expect(throws: BlueZError.self) { try ad.validate() }
        do {
            try ad.validate()
        } catch {
            #expect(error.code == .invalidLength)
            #expect(error.message.contains("0xffff"))
        }
        let service = LEAdvertisement(serviceData: [BluetoothUUID("6a1d0001-8f4e-4a5b-9c1e-5b0d7c7e0001")!: Data(count: 14)])
        #expect(throws: BlueZError.self) { try service.validate() }
        #expect(throws: Never.self) { try LEAdvertisement(manufacturerData: [1: Data(count: 27)]).validate() }
    }

    @Test("the length estimate follows BlueZ's layout: flags, manufacturer data, 16-bit service data")
    func estimate() {
        let ad = LEAdvertisement(manufacturerData: [0xFFFF: Data(count: 10)],
                                 serviceData: [BluetoothUUID(short: 0xFE2C): Data(count: 4)])
        #expect(ad.estimatedLength == 3 + (4 + 10) + (4 + 4))
    }
}
