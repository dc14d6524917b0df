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
