import Foundation
import HandoffKit
import HandoffShared

extension Scenarios {
    /// Two strangers pair over BLE (the responder advertises its pairing beacon, the initiator connects to the
    /// transfer service), both see the same code, and the initiator then continues the responder's note.
    @Sendable static func pairing() async throws -> String {
        let responder = try await ScenarioDevice.make("laptop", adapter: "hci0",
                                                      store: try TrustStore.create(deviceName: "laptop"))
        let initiator = try await ScenarioDevice.make("desktop", adapter: "hci1",
                                                      store: try TrustStore.create(deviceName: "desktop"))
        defer { Task { for device in [responder, initiator] { await device.shutDown() } } }
        let codes = Locked<[String: String]>([:])
        let candidates = await initiator.engine.pairingCandidates()
        let accepting = Task {
            try await responder.engine.acceptPairing { code in
                codes.withLock { $0["responder"] = code }
                return true
            }
        }
        let started = ContinuousClock.now
        let candidate = try await first(candidates, "the pairing beacon") { $0.name == "laptop" }
        let joined = try await within(.seconds(90), "pairing") {
            try await initiator.engine.pair(with: candidate.peer) { code in
                codes.withLock { $0["initiator"] = code }
                return true
            }
        }
        let answered = try await within(.seconds(30), "the responder's result") { try await accepting.value }
        let pairedAfter = ContinuousClock.now - started
        let shown = codes.withLock { $0 }
        try expect(shown["responder"] != nil && shown["responder"] == shown["initiator"], "codes differ: \(shown)")
        try expect(joined.devices.contains { $0.name == "laptop" }, "the initiator does not trust the responder")
        try expect(answered.devices.contains { $0.name == "desktop" }, "the responder does not trust the initiator")

        let (_, remote) = try await offerNote(bytes: 3 * 1024, from: responder, to: initiator)
        let outcome = await initiator.engine.continueActivity(remote)
        guard outcome.activity != nil else {
            throw ScenarioFailure("continue after pairing failed: \(String(describing: outcome.error))")
        }
        return "paired in \(seconds(pairedAfter)) s (code \(shown["initiator"] ?? "?") on both), then continued a 3 KiB note"
    }
}
