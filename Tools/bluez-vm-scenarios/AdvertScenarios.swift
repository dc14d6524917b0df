import BlueZ
import Foundation
import ScenarioSupport

/// Advertising on real bluetoothd: data seen from the other adapter, both update methods timed, and the two
/// registration errors.
enum AdvertScenarios {
    static let seen = Scenario(name: "advert-data-seen") { report in
        let rig = try await Rig.make()
        let ad = LEAdvertisement(
            manufacturerData: [Rig.company: Data([0x01, 0x02, 0x03])], serviceData: [Rig.service: Data([0x09, 0x08])])
        let registration = try await rig.bluez.register(ad, on: rig.hci0)
        defer { Task { await registration.cancel() } }
        let started = ContinuousClock.now
        let device = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company)) {
            $0.manufacturerData[Rig.company] == Data([1, 2, 3])
        }
        report.measure("first_report_ms", "\(Report.milliseconds(ContinuousClock.now - started))")
        try check(device.serviceData[Rig.service] == Data([9, 8]),
                  "service data on hci1 is \(String(describing: device.serviceData)), expected 0908 under \(Rig.service)")
        report.note("hci1 sees \(device.address) rssi=\(device.rssi.map(String.init) ?? "-")")

        // Update 1: PropertiesChanged on the exported object.
        var next = ad
        next.manufacturerData = [Rig.company: Data([0x04, 0x05, 0x06])]
        var t0 = ContinuousClock.now
        try await registration.update(next, method: .propertiesChanged)
        _ = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company), timeout: .seconds(45)) {
            $0.manufacturerData[Rig.company] == Data([4, 5, 6])
        }
        report.measure("update_propertieschanged_ms", "\(Report.milliseconds(ContinuousClock.now - t0))")

        // Update 2: unregister + register.
        next.manufacturerData = [Rig.company: Data([0x07, 0x08, 0x09])]
        t0 = ContinuousClock.now
        try await registration.update(next, method: .reregister)
        _ = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company), timeout: .seconds(45)) {
            $0.manufacturerData[Rig.company] == Data([7, 8, 9])
        }
        report.measure("update_reregister_ms", "\(Report.milliseconds(ContinuousClock.now - t0))")
    }

    static let errors = Scenario(name: "advert-errors") { report in
        let rig = try await Rig.make()
        let props = try await rig.hci0.properties()
        report.measure("supported_instances", "\(props.supportedInstances.map(String.init) ?? "-")")
        report.measure("max_adv_len", "\(props.maxAdvertisingLength.map(String.init) ?? "absent (needs bluetoothd -E in 5.66)")")

        // One field too large for any advertisement: refused by our own check, naming the field.
        do {
            let registration = try await rig.bluez.register(
                LEAdvertisement(manufacturerData: [Rig.company: Data(repeating: 0xAA, count: 28)]), on: rig.hci0)
            await registration.cancel()
            throw ScenarioFailure("28 bytes of manufacturer data were accepted")
        } catch let error as BlueZError {
            report.note("one field too large: \(error)")
            try check(error.code == .invalidLength, "expected InvalidLength, got \(error)")
        }
        // Ten valid fields, 310 bytes together: more than even extended advertising (251) carries.
        var companies: [UInt16: Data] = [:]
        for company in UInt16(1)...10 { companies[company] = Data(repeating: UInt8(company), count: 27) }
        do {
            let registration = try await rig.bluez.register(LEAdvertisement(manufacturerData: companies), on: rig.hci0)
            await registration.cancel()
            throw ScenarioFailure("a 310-byte advertisement was accepted")
        } catch let error as BlueZError {
            report.note("too long in total: \(error)")
            try check(error.code == .invalidLength, "expected InvalidLength from bluetoothd, got \(error)")
        }

        var registrations: [AdvertisementRegistration] = []
        defer { for registration in registrations { Task { await registration.cancel() } } }
        for index in 0..<16 {
            do {
                registrations.append(
                    try await rig.bluez.register(LEAdvertisement(manufacturerData: [Rig.company: Data([UInt8(index)])]),
                                                 on: rig.hci0))
            } catch let error as BlueZError {
                report.measure("instances_before_notpermitted", "\(index)")
                report.note("instance \(index + 1): \(error)")
                try check(error.code == .notPermitted, "expected NotPermitted, got \(error)")
                return
            }
        }
        throw ScenarioFailure("16 advertisements registered without NotPermitted")
    }
}
