import BlueZ
import Foundation

// What the BlueZ and L2CAP layers' VM scenario runners (bluez-vm-scenarios, l2cap-vm-scenarios) share: a
// failure, the report of notes and measurements, the checks, and the two powered adapters.

/// A scenario's failure, with the reason printed on its FAIL line.
package struct ScenarioFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Where a scenario writes its notes (stderr, so they land in the scenario log) and measurements
/// (`MEASURE name key=value` on stdout, easy to grep from logs).
package struct Report: Sendable {
    package let name: String
    package let started = ContinuousClock.now

    package init(name: String) { self.name = name }

    package func note(_ text: String) {
        FileHandle.standardError.write(Data("[\(name) +\(elapsedMilliseconds) ms] \(text)\n".utf8))
    }

    /// A measurement, as `MEASURE name key=value`.
    package func measure(_ key: String, _ value: String) {
        print("MEASURE \(name) \(key)=\(value)")
        note("\(key)=\(value)")
    }

    package var elapsedMilliseconds: Int { Self.milliseconds(ContinuousClock.now - started) }

    package static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// `check(condition, "what went wrong")`.
package func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScenarioFailure(message()) }
}

/// Runs `body` with a time limit.
package func within<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw ScenarioFailure("timed out after \(limit) waiting for \(what)")
        }
        return value
    }
}

/// The system bus's bluetoothd, its log on stderr, and hci0 and hci1 powered.
package func poweredAdapters() async throws -> (bluez: BlueZ, hci0: Adapter1, hci1: Adapter1) {
    let bluez = try await BlueZ.connect(bus: .system, log: { line in
        FileHandle.standardError.write(Data("bluez: \(line)\n".utf8))
    })
    let hci0 = try await bluez.waitForAdapter(named: "hci0")
    let hci1 = try await bluez.waitForAdapter(named: "hci1")
    try await hci0.setPowered(true)
    try await hci1.setPowered(true)
    return (bluez, hci0, hci1)
}
