import Foundation
import HandoffBlueZ
import HandoffKit
import HandoffTesting

extension Scenarios {
    /// Issue 14 §2: `receivers` machines continue one source's note at the same moment (btvirt with
    /// `receivers + 1` controllers: the source on hci0, each receiver on its own adapter with its own BlueZ
    /// connection, as separate daemons would be). Every one must get the payload byte for byte; the detail says
    /// each one's time and transport, and how many links the source served at once.
    static func fanOut(receivers: Int, bytes: Int) async throws -> String {
        let names = ["laptop"] + (1...receivers).map { "desk\($0)" }
        let stores = try HandoffFixtures.pairedStores(names)
        let source = try await ScenarioDevice.make("laptop", adapter: "hci0", store: stores[0])
        var made: [ScenarioDevice] = []
        for index in 1...receivers {
            made.append(try await ScenarioDevice.make(names[index], adapter: "hci\(index)", store: stores[index]))
        }
        let targets = made
        defer { Task { for device in [source] + targets { await device.shutDown() } } }
        var watches: [AsyncStream<RemoteActivity>] = []
        for target in targets { watches.append(await target.engine.availabilityUpdates()) }
        let activity = UserActivity(activityType: noteType)
        activity.title = "Groceries"
        activity.userInfo = ["content": "milk, eggs", "blob": .data(blob(bytes))]
        try await activity.becomeCurrent(in: source.engine)
        var remotes: [RemoteActivity] = []
        for (target, stream) in zip(targets, watches) {
            remotes.append(try await first(stream, "availability of the note on \(target.name)", limit: .seconds(60)))
        }
        let started = ContinuousClock.now
        let outcomes = await withTaskGroup(of: (Int, ContinuationOutcome, Duration).self) { group in
            for (index, target) in targets.enumerated() {
                let remote = remotes[index]
                group.addTask { [started] in
                    let outcome = await target.engine.continueActivity(remote)
                    return (index, outcome, ContinuousClock.now - started)
                }
            }
            var all: [(Int, ContinuationOutcome, Duration)] = []
            for await result in group { all.append(result) }
            return all.sorted { $0.0 < $1.0 }
        }
        var failures: [String] = []
        var lines: [String] = []
        for (index, outcome, took) in outcomes {
            let target = targets[index]
            let over = target.counting.transports.last.map { "\($0.kind)" } ?? "?"
            guard let received = outcome.activity else {
                failures.append("\(target.name): \(String(describing: outcome.error))")
                continue
            }
            if received.userInfo["blob"] != .data(blob(bytes)) || received.title != "Groceries" {
                failures.append("\(target.name): the payload arrived altered")
            }
            lines.append("\(target.name) \(seconds(took)) s over \(over)")
        }
        guard failures.isEmpty else {
            throw ScenarioFailure("\(failures.count) of \(receivers) failed: " + failures.joined(separator: "; "))
        }
        let slowest = outcomes.map(\.2).max() ?? .zero
        return "\(receivers) receivers continued \(bytes) B at once, every one byte for byte; all done after "
            + "\(seconds(slowest)) s: " + lines.joined(separator: ", ")
    }
}
