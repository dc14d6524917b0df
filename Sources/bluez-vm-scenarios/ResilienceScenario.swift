import BlueZ
import DBus
import Foundation

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

        let t0 = ContinuousClock.now
        let restart = Process()
        restart.executableURL = URL(fileURLWithPath: "/bin/bash")
        restart.arguments = ["-c", "guest-bluez.sh restart-bluetoothd --signal KILL"]
        try restart.run()
        // Watch our own registrations come back while the restart script waits for the adapters.
        var restored: (ad: ContinuousClock.Instant, app: ContinuousClock.Instant)?
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let adState = await rig.bluez.registrationState(ad.path),
               let appState = await rig.bluez.registrationState(app.root),
               adState.active, appState.active, adState.restoreCount > 0, appState.restoreCount > 0,
               let adAt = adState.registeredAt, let appAt = appState.registeredAt
            {
                restored = (adAt, appAt)
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        restart.waitUntilExit()
        try check(restart.terminationStatus == 0, "guest-bluez.sh restart-bluetoothd failed")
        guard let restored, let ownerAt = await rig.bluez.ownerAppearedAt else {
            throw ScenarioFailure("registrations did not come back within 60 s")
        }
        let last = max(restored.ad, restored.app)
        let registeredWithin = last - ownerAt
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
                  "re-registration took \(Report.milliseconds(registeredWithin)) ms after org.bluez returned")
        _ = try await rig.discover(DiscoveryFilter(manufacturerID: Rig.company), timeout: .seconds(30)) {
            $0.manufacturerData[Rig.company] == Data([0x52])
        }
        report.note("hci1 sees the advertisement again")
    }
}
