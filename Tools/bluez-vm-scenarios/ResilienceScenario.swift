import BlueZ
import DBus
import Foundation
import HandoffShared
import ScenarioSupport

/// bluetoothd killed (SIGKILL) and started again by guest-bluez.sh while this process keeps running: the
/// advertisement and the GATT application must be registered again within 2 s, by the layer on its own.
enum ResilienceScenario {
    static let restart = Scenario(name: "bluetoothd-restart-recovery") { report in
        let rig = try await Rig.make()
        let app = try await rig.bluez.register(GattApplication(services: [
            .init(uuid: Rig.service, characteristics: [.init(uuid: Rig.outbox, flags: [.notify])])
        ]), on: rig.hci0)
        let ad = try await rig.bluez.register(
            LEAdvertisement(manufacturerData: [Rig.company: Data([0x52])]), on: rig.hci0)
        defer { Task { await ad.cancel(); await app.cancel() } }
        let pid = ProcessInfo.processInfo.processIdentifier
        let generation = await rig.bluez.generation

        let clock = rig.bluez.clock   // the instants below are compared with the layer's own
        let t0 = clock.now
        let restart = Task.detached { runCommand(["/bin/bash", "-c", "guest-bluez.sh restart-bluetoothd --signal KILL"]) }
        // Watch our own registrations come back while the restart script waits for the adapters.
        var restored: (ad: HandoffInstant, app: HandoffInstant)?
        var adapterBackAt: HandoffInstant?
        var poweredAt: HandoffInstant?
        let deadline = clock.now + .seconds(60)
        while clock.now < deadline {
            if adapterBackAt == nil, await rig.bluez.generation > generation,
               let props = await rig.bluez.adapters().first(where: { $0.name == "hci0" }), props.canAdvertise,
               props.canServeGatt
            {
                adapterBackAt = clock.now
                report.note("hci0 is back with its LE managers")
            }
            if poweredAt == nil, adapterBackAt != nil,
               await rig.bluez.adapters().first(where: { $0.name == "hci0" })?.powered == true
            {
                poweredAt = clock.now
                report.note("hci0 is powered again")
            }
            if let adState = await rig.bluez.registrationState(ad.path),
               let appState = await rig.bluez.registrationState(app.root),
               poweredAt != nil, adState.active, appState.active, adState.restoreCount > 0, appState.restoreCount > 0,
               let adAt = adState.registeredAt, let appAt = appState.registeredAt
            {
                restored = (adAt, appAt)
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        report.note("registrations back; waiting for guest-bluez.sh to finish")
        let status = await restart.value
        try check(status == 0, "guest-bluez.sh restart-bluetoothd failed (status \(status))")
        guard let restored, let ownerAt = await rig.bluez.ownerAppearedAt, let adapterBackAt, let poweredAt else {
            throw ScenarioFailure("registrations did not come back within 60 s")
        }
        let last = max(restored.ad, restored.app)
        // bluetoothd is "back" when hci0 is powered again; registering can finish before that (<= 0 ms).
        let registeredWithin = last - poweredAt
        report.measure("owner_back_to_adapter_back_ms", "\(Report.milliseconds(adapterBackAt - ownerAt))")
        report.measure("adapter_back_to_powered_ms", "\(Report.milliseconds(poweredAt - adapterBackAt))")
        report.measure("adapter_back_to_registered_ms", "\(Report.milliseconds(last - adapterBackAt))")
        report.measure("powered_to_registered_ms", "\(Report.milliseconds(registeredWithin))")
        report.measure("kill_to_registered_ms", "\(Report.milliseconds(last - t0))")
        report.measure("owner_back_to_ad_registered_ms", "\(Report.milliseconds(restored.ad - ownerAt))")
        report.measure("owner_back_to_app_registered_ms", "\(Report.milliseconds(restored.app - ownerAt))")
        try check(ProcessInfo.processInfo.processIdentifier == pid, "process changed")
        try check(await rig.bluez.generation > generation, "the mirror was not rebuilt")

        // Verify from bluetoothd's side: our advertisement counts, our service is in the adapter's UUIDs,
        // and hci1 sees the advertisement again.
        let instances = try await rig.hci0.advertisingInstances()
        try check(instances.active >= 1, "ActiveInstances is \(instances.active) after the restart")
        try check(registeredWithin <= .seconds(2),
                  "re-registration finished \(Report.milliseconds(registeredWithin)) ms after hci0 was powered again")
        _ = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company), timeout: .seconds(30)) {
            $0.manufacturerData[Rig.company] == Data([0x52])
        }
        report.note("hci1 sees the advertisement again")
    }
}
