import BlueZ
import Foundation
import HandoffKit
import Synchronization

extension Scenarios {
    /// Issue 14 §2, pairing right after bluetoothd comes back: two strangers pair (hci1's bluetoothd caches hci0's
    /// attribute table in /var/lib/bluetooth), both engines go away, bluetoothd restarts with that storage, and two
    /// new strangers pair on the same adapters. With `shifted`, hci0 serves another application before the new
    /// transfer service, laid out like it, so the cached handles of the transfer characteristics now name the
    /// other application's (what a peer whose daemon registered its services in another order looks like).
    @Sendable static func pairAfterRestart(shifted: Bool) async throws -> String {
        let before = try await pairStrangers("before the restart")
        say("radio-pair-after-restart: restarting bluetoothd, keeping /var/lib/bluetooth")
        try await runGuest(["restart-bluetoothd"])
        var decoy: (BlueZ, GattRegistration)?
        if shifted {
            let bluez = try await BlueZ.connect(bus: .system)
            decoy = (bluez, try await bluez.register(decoyApplication, on: try bluez.adapter(named: "hci0")))
            say("radio-pair-after-restart: a decoy application now comes first on hci0")
        }
        let after: String
        do {
            after = try await pairStrangers("after the restart")
        } catch {
            if let (bluez, registration) = decoy { await registration.cancel(); await bluez.close() }
            throw error
        }
        if let (bluez, registration) = decoy { await registration.cancel(); await bluez.close() }
        return "\(before); \(after)"
    }

    /// A service shaped like the transfer service (a read-only, a notify and a read-only characteristic), so that
    /// a stale handle of the request characteristic lands on a value that cannot be written.
    static let decoyApplication = GattApplication(services: [
        GattApplication.Service(uuid: BluetoothUUID("5e4c0a7e-0000-4000-8000-00000000d0c0")!, characteristics: [
            .init(uuid: BluetoothUUID("5e4c0a7e-0001-4000-8000-00000000d0c0")!, flags: [.read],
                  onRead: { _ in Data([1]) }),
            .init(uuid: BluetoothUUID("5e4c0a7e-0002-4000-8000-00000000d0c0")!, flags: [.notify]),
            .init(uuid: BluetoothUUID("5e4c0a7e-0003-4000-8000-00000000d0c0")!, flags: [.read],
                  onRead: { _ in Data([2]) }),
        ]),
    ])

    /// Issue 14 §2, deterministically: bluetoothd's cached copy of a peer's attribute table is stale although its
    /// Database Hash matches (what BlueZ 5.66 keeps when a rediscovery is cut short: the new hash is stored before
    /// the services are read). Two strangers pair, bluetoothd stops, hci1's cache of hci0 gets the request and
    /// PSM characteristics swapped (handles and hash kept), bluetoothd starts, and two new strangers pair: the
    /// first attempt must succeed, although bluetoothd skips the discovery and its request handle is the PSM's.
    @Sendable static func pairOnStaleCache() async throws -> String {
        let cache = "/var/lib/bluetooth/00:AA:01:01:00:01/cache/00:AA:01:00:00:00"
        // Stopped while both still run: the laptop's service leaving would reach a connected desktop as a Service
        // Changed, and bluetoothd would store the table without it.
        let before = try await pairStrangers("to fill the cache") {
            try await within(.seconds(30), "the transfer service in \(cache)") {
                while (try? String(contentsOfFile: cache, encoding: .utf8))?
                    .contains(WireProtocol.requestCharacteristicUUID.string) != true {
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            try await runGuest(["stop-bluetoothd"])
        }
        let swapped = try swapCachedCharacteristics(WireProtocol.requestCharacteristicUUID.string,
                                                    WireProtocol.psmCharacteristicUUID.string, cache: cache)
        say("radio-pair-stale-cache: cache doctored: \(swapped)")
        try await runGuest(["start-bluetoothd"])
        try await runGuest(["wait-ready"])
        let after = try await pairStrangers("on the stale cache", attempts: 2)
        return "\(before); \(after)"
    }

    /// Swaps the properties and UUIDs of two characteristic declarations in a bluetoothd cache file
    /// (`HHHH=2803:VVVV:PP:UUID` lines of [Attributes]), keeping every handle and the stored hash.
    static func swapCachedCharacteristics(_ a: String, _ b: String, cache: String) throws -> String {
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        func declaration(_ uuid: String) throws -> (index: Int, head: String, tail: String) {
            for (index, line) in lines.enumerated() where line.lowercased().hasSuffix(uuid.lowercased()) {
                let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[0].hasSuffix("=2803") else { continue }
                return (index, "\(fields[0]):\(fields[1]):", String(fields[2]))
            }
            throw ScenarioFailure("no declaration of \(uuid) in \(cache):\n\(text)")
        }
        let first = try declaration(a), second = try declaration(b)
        lines[first.index] = first.head + second.tail
        lines[second.index] = second.head + first.tail
        try lines.joined(separator: "\n").write(toFile: cache, atomically: true, encoding: .utf8)
        return "\(lines[first.index]) / \(lines[second.index])"
    }

    /// Two new strangers pair, hci1 (desktop) initiating towards hci0 (laptop), then shut down. With `attempts`
    /// above 1 a failed pairing is tried again by the same engines (a user trying again); the detail says how many
    /// it took, and the scenario fails when it took more than one. `whilePaired` runs after the pairing, before
    /// the engines stop.
    static func pairStrangers(_ when: String, attempts: Int = 1,
                              whilePaired: @escaping @Sendable () async throws -> Void = {}) async throws -> String {
        let responder = try await ScenarioDevice.make("laptop", adapter: "hci0",
                                                      store: try TrustStore.create(deviceName: "laptop"))
        let initiator = try await ScenarioDevice.make("desktop", adapter: "hci1",
                                                      store: try TrustStore.create(deviceName: "desktop"))
        let result: Result<String, any Error> = await Result {
            let codes = Codes()
            let accept = { @Sendable in
                Task {
                    try await responder.engine.acceptPairing { code in
                        codes.note("responder", code)
                        return true
                    }
                }
            }
            let candidates = await initiator.engine.pairingCandidates()
            var accepting = accept()           // the responder beacons its pairing only while it accepts
            defer { accepting.cancel() }
            let started = ContinuousClock.now
            let candidate = try await first(candidates, "the pairing beacon \(when)", limit: .seconds(60)) {
                $0.name == "laptop"
            }
            var failures: [String] = []
            for attempt in 1...attempts {
                if attempt > 1 {
                    accepting.cancel()
                    accepting = accept()
                }
                let responding = accepting
                do {
                    let joined = try await within(.seconds(90), "pairing \(when)") {
                        try await initiator.engine.pair(with: candidate.peer) { code in
                            codes.note("initiator", code)
                            return true
                        }
                    }
                    _ = try await within(.seconds(30), "the responder's result \(when)") { try await responding.value }
                    try expect(joined.devices.contains { $0.name == "laptop" }, "the initiator does not trust the responder")
                    try expect(codes.agree, "the codes differ: \(codes.shown)")
                } catch {
                    say("radio-pair: attempt \(attempt) \(when) failed: \(error)")
                    failures.append("attempt \(attempt): \(error)")
                    continue
                }
                try expect(failures.isEmpty, "paired \(when) only at attempt \(attempt); \(failures.joined(separator: "; "))")
                try await whilePaired()
                return "paired \(when) in \(seconds(ContinuousClock.now - started)) s "
                    + "(\(initiator.counting.connectCount) connects)"
            }
            throw ScenarioFailure("no pairing \(when) in \(attempts) attempts: \(failures.joined(separator: "; "))")
        }
        for device in [responder, initiator] { await device.shutDown() }
        return try result.get()
    }
}

/// The codes each side was shown.
final class Codes: Sendable {
    private let codes = Mutex<[String: String]>([:])

    func note(_ side: String, _ code: String) { codes.withLock { $0[side] = code } }
    var shown: [String: String] { codes.withLock { $0 } }
    var agree: Bool { shown["responder"] != nil && shown["responder"] == shown["initiator"] }
}
