import BlueZ
import DBus
import Foundation
import HandoffKit

extension Scenarios {
    /// The central's device path on the source's adapter (hci1's address seen from hci0).
    static let targetOnSource = ObjectPath(stringLiteral: "/org/bluez/hci0/dev_00_AA_01_01_00_01")

    /// Starts continuing a 128 KiB note of `source`'s on `target`, and returns 1.5 s after the target's link to the
    /// source (the source's central) is up: the transfer is then under way.
    private static func transferUnderWay(from source: ScenarioDevice, to target: ScenarioDevice) async throws
        -> (transfer: Task<ContinuationOutcome, Never>, central: Device1) {
        let (_, remote) = try await offerNote(bytes: 128 * 1024, from: source, to: target)
        let transfer = Task { await target.engine.continueActivity(remote) }
        let central = await source.bluez.device(at: targetOnSource)
        try await within(.seconds(60), "the central to connect") {
            while (try? await central.properties().connected) != true { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await Task.sleep(for: .milliseconds(1500))
        return (transfer, central)
    }

    /// The link drops mid-transfer (the source disconnects the central); the target reconnects and resumes.
    @Sendable static func resumeAfterDisconnect() async throws -> String {
        let (source, target) = try await trustedPair()
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (transfer, central) = try await transferUnderWay(from: source, to: target)
        let connectsBefore = target.counting.connectCount
        do {
            try await central.disconnect()
        } catch {
            throw ScenarioFailure("the source could not disconnect the central: \(error)")
        }
        let dropped = ContinuousClock.now
        let outcome = try await within(.seconds(180), "the resumed transfer") { await transfer.value }
        guard let received = outcome.activity else {
            throw ScenarioFailure("no resume: \(String(describing: outcome.error))")
        }
        try expect(received.userInfo["blob"] == .data(blob(128 * 1024)), "the resumed payload arrived altered")
        let connects = target.counting.connectCount
        try expect(connects > connectsBefore, "the transfer finished without reconnecting (it was over before the drop)")
        return "128 KiB transfer dropped by the source after 1.5 s; target reconnected (\(connects) connections) and "
            + "finished \(seconds(ContinuousClock.now - dropped)) s after the drop"
    }

    /// The source goes away mid-transfer (engine stopped, service and advertisement gone, link dropped): the
    /// target reports connectionUnavailable (4609) for the note's type through didFailToContinue.
    @Sendable static func sourceVanishes() async throws -> String {
        let (source, target) = try await trustedPair(configure: { $0.maximumReconnects = 1 },
                                                     target: { $0.connectAttempts = 1 })
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (transfer, central) = try await transferUnderWay(from: source, to: target)
        await source.engine.stop()
        await source.radio.close()
        try? await central.disconnect()
        let outcome = try await within(.seconds(200), "the failure") { await transfer.value }
        guard let error = outcome.error else {
            throw ScenarioFailure("the transfer finished although the source vanished (\(String(describing: outcome)))")
        }
        try expect(error.code == .connectionUnavailable || error.code == .remoteApplicationTimedOut,
                   "wrong code \(error.code.rawValue): \(error.message)")
        let reported = target.delegate.failures
        try expect(reported.count == 1 && reported.first?.activityType == noteType,
                   "didFailToContinue got \(reported.map { "\($0.activityType) \($0.error.code.rawValue)" })")
        return "didFailToContinue(\(noteType), \(error.code.rawValue)): \(error.message)"
    }

    /// bluetoothd is killed and restarted under running engines: the advertisement, GATT application and
    /// discovery come back by themselves, an update is seen and the note continues.
    @Sendable static func bluetoothdRestart() async throws -> String {
        let (source, target) = try await trustedPair()
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (activity, remote) = try await offerNote(bytes: 3 * 1024, from: source, to: target)
        let killed = ContinuousClock.now
        say("radio-restart: killing bluetoothd")
        try await runGuest(["restart-bluetoothd", "--signal", "KILL"])
        let ready = ContinuousClock.now
        say("radio-restart: bluetoothd is back after \(seconds(ready - killed)) s; updating the note")
        let updates = await target.engine.availabilityUpdates()
        activity.userInfo = ["content": "after the restart", "blob": .data(blob(3 * 1024))]
        say("radio-restart: waiting for the new beacon")
        let next = try await first(updates, "the beacon after the restart", limit: .seconds(60)) {
            $0.sequence > remote.sequence
        }
        let seenAfter = ContinuousClock.now - ready
        say("radio-restart: new beacon seen after \(seconds(seenAfter)) s; continuing")
        let outcome = await target.engine.continueActivity(next)
        guard let received = outcome.activity else {
            throw ScenarioFailure("continue after the restart failed: \(String(describing: outcome.error))")
        }
        try expect(received.userInfo["content"] == "after the restart", "the old state arrived")
        return "bluetoothd SIGKILL+restart took \(seconds(ready - killed)) s; new beacon seen \(seconds(seenAfter)) s "
            + "after BlueZ was ready; continue OK, our processes untouched"
    }

    /// Issue 14 §2, as a new user would try it: `rounds` times in a row, bluetoothd is killed (SIGKILL) and
    /// started again while a note is offered, the note is edited, and the desktop continues it as soon as the new
    /// beacon shows, seconds after both adapters are powered again. Every continue must succeed and bring that
    /// round's edit. Prints how long the beacon took after BlueZ was ready, and each continue.
    @Sendable static func continueAfterRestarts(rounds: Int) async throws -> String {
        let (source, target) = try await trustedPair()
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (activity, remote) = try await offerNote(bytes: 3 * 1024, from: source, to: target)
        var last = remote
        var beacons: [Duration] = []
        var continues: [Duration] = []
        for round in 1...rounds {
            try await runGuest(["restart-bluetoothd", "--signal", "KILL"])
            let ready = ContinuousClock.now
            let updates = await target.engine.availabilityUpdates()
            let content = "after restart \(round)"
            activity.userInfo = ["content": .string(content), "blob": .data(blob(3 * 1024))]
            let previous = last.sequence
            let next = try await first(updates, "round \(round)'s beacon", limit: .seconds(60)) {
                $0.sequence > previous
            }
            let seen = ContinuousClock.now
            let outcome = await target.engine.continueActivity(next)
            guard let received = outcome.activity else {
                throw ScenarioFailure("round \(round) of \(rounds): the continue \(seconds(ContinuousClock.now - seen)) s "
                                          + "after the beacon failed: \(String(describing: outcome.error))")
            }
            try expect(received.userInfo["content"] == .string(content),
                       "round \(round) brought \(String(describing: received.userInfo["content"]))")
            beacons.append(seen - ready)
            continues.append(ContinuousClock.now - seen)
            last = next
            say("radio-restart-continues: round \(round): beacon \(seconds(seen - ready)) s after BlueZ was ready, "
                + "continue \(seconds(ContinuousClock.now - seen)) s")
        }
        return "\(rounds)/\(rounds) continues right after a bluetoothd SIGKILL and restart; beacon seen after "
            + "\(beacons.map(seconds).joined(separator: " ")) s; continues took \(continues.map(seconds).joined(separator: " ")) s"
    }

    /// Runs `guest-bluez.sh` (on PATH in the VM) through `system()` on a Dispatch thread and awaits it, so no
    /// cooperative thread blocks and nothing depends on Foundation's child-process monitoring.
    static func runGuest(_ arguments: [String]) async throws {
        let command = (["guest-bluez.sh"] + arguments).joined(separator: " ")
        let status: Int32 = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: system(command)) }
        }
        try expect(status == 0, "\(command) exited with status \(status)")
    }
}
