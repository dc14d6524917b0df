import BlueZ
import Foundation
import HandoffBlueZ
import HandoffKit

extension Scenarios {
    /// The beacon scenario on the advertisement monitor (bluetoothd -E): the target must scan with the monitor,
    /// not fall back, and still decode the beacon and its update.
    @Sendable static func beaconMonitor() async throws -> String {
        let (source, target) = try await trustedPair(target: { $0.scanning = .monitor })
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let started = ContinuousClock.now
        let (activity, remote) = try await offerNote(bytes: 100, from: source, to: target)
        let seenAfter = ContinuousClock.now - started
        let state = await target.radio.scanningState
        guard case .monitor = state else { throw ScenarioFailure("the target scans with \(String(describing: state))") }
        let updates = await target.engine.availabilityUpdates()
        let updated = ContinuousClock.now
        activity.userInfo = ["content": "milk, eggs, bread"]
        let next = try await first(updates, "the updated beacon") { $0.sequence > remote.sequence }
        return "\(state.map { "\($0)" } ?? "?"): beacon decoded after \(seconds(seenAfter)) s; update (sequence "
            + "\(remote.sequence) → \(next.sequence)) after \(seconds(ContinuousClock.now - updated)) s"
    }

    /// An activity set aside after a failed continue comes back while its source is still in range, though nothing
    /// about it changed: the target's first connect is refused (in its radio, so bluetoothd and the source see
    /// nothing unusual), the continue fails with connectionUnavailable and the note is set aside; the source keeps
    /// advertising the very same beacon (no rotation), which bluetoothd reports only through the monitor's next
    /// `DeviceFound`. The note must be listed again, with the same sequence, and continue. Needs bluetoothd -E.
    ///
    /// A controller reports each advertising event of the source while the monitor's passive scan runs (its
    /// duplicate filter off); btvirt sends a report only when scanning or advertising is enabled. So the source's
    /// next advertisement is made here by enabling its unchanged advertisement again: the same bytes, so that
    /// bluetoothd sees no property change and only the monitor's `DeviceFound` can tell.
    @Sendable static func setAsideRelisted() async throws -> String {
        let (source, target) = try await trustedPair(target: { $0.scanning = .monitor })
        defer { Task { for device in [source, target] { await device.shutDown() } } }
        let (_, remote) = try await offerNote(bytes: 100, from: source, to: target)
        let state = await target.radio.scanningState
        guard case .monitor = state else { throw ScenarioFailure("the target scans with \(String(describing: state))") }

        target.counting.refuseConnects(1)
        let failed = await target.engine.continueActivity(remote)
        try expect(failed.error?.code == .connectionUnavailable, "the refused continue ended \(failed)")
        let updates = await target.engine.availabilityUpdates()
        let setAside = ContinuousClock.now
        await target.engine.setAside(remote)
        let hidden = await target.engine.availableActivities()
        try expect(hidden.allSatisfy { $0.sequence != remote.sequence }, "the note is still listed: \(hidden)")
        guard let beacon = source.counting.lastBeacon else { throw ScenarioFailure("the source advertised nothing") }
        await source.radio.stopAdvertising()
        try await source.radio.advertise(beacon)

        let back = try await first(updates, "the note listed again") { $0.id == remote.id }
        let relistedAfter = ContinuousClock.now - setAside
        try expect(back.sequence == remote.sequence, "listed again as sequence \(back.sequence), not \(remote.sequence)")
        let continued = await target.engine.continueActivity(back)
        guard let activity = continued.activity else { throw ScenarioFailure("the second continue ended \(continued)") }
        try expect(activity.title == "Groceries", "continued '\(activity.title ?? "")'")
        try expect(activity.userInfo["blob"] == .data(blob(100)), "the note's data differs")
        return "continue refused (\(failed.error?.code.rawValue ?? 0)), note set aside and listed again "
            + "\(seconds(relistedAfter)) s later with the same sequence \(remote.sequence), then continued"
    }

    /// How long discovery takes, old path against new in one boot: `HANDOFF_BENCH_RUNS` (20) rounds, each making
    /// a note current on hci0 and timing until hci1's engine lists it, once with a discovery and once with the
    /// advertisement monitor (order alternating). Fresh radios every time, and hci1 forgets hci0's device first,
    /// so each run discovers from nothing. Needs bluetoothd -E (the monitor manager).
    @Sendable static func discoveryLatency() async throws -> String {
        let runs = ProcessInfo.processInfo.environment["HANDOFF_BENCH_RUNS"].flatMap(Int.init) ?? 20
        var times: [ScanningMethod: [Double]] = [.discovery: [], .monitor: []]
        for run in 0..<runs {
            let order: [ScanningMethod] = run.isMultiple(of: 2) ? [.discovery, .monitor] : [.monitor, .discovery]
            for method in order {
                let (source, target) = try await trustedPair(target: { $0.scanning = method })
                let hci1 = try await target.bluez.adapter(named: "hci1")
                for device in await hci1.devices() where device.address.string == "00:AA:01:00:00:00" {
                    try? await hci1.removeDevice(target.bluez.device(at: device.path))
                }
                let started = ContinuousClock.now
                let outcome = await Result { try await offerNote(bytes: 100, from: source, to: target) }
                let elapsed = ContinuousClock.now - started
                let state = await target.radio.scanningState
                for device in [source, target] { await device.shutDown() }
                _ = try outcome.get()
                if method == .monitor, case .discovery = state {
                    throw ScenarioFailure("run \(run): the monitor was not used (\(String(describing: state)))")
                }
                let value = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                times[method, default: []].append(value)
                say("discovery-latency run \(run + 1) \(method): \(String(format: "%.3f", value)) s")
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
        func summary(_ method: ScanningMethod) -> String {
            let sorted = (times[method] ?? []).sorted()
            guard !sorted.isEmpty else { return "\(method): none" }
            let p50 = sorted[sorted.count / 2]
            let p95 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))]
            return "\(method) p50 \(String(format: "%.3f", p50)) s p95 \(String(format: "%.3f", p95)) s "
                + "min \(String(format: "%.3f", sorted[0])) max \(String(format: "%.3f", sorted[sorted.count - 1]))"
        }
        return "\(runs) runs each: \(summary(.discovery)); \(summary(.monitor))"
    }
}
