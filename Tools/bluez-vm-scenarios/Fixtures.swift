import BlueZ
import DBus
import Foundation
import ScenarioSupport

/// What the scenarios share: the bus, the two adapters (hci0 serves and advertises, hci1 scans and connects).
struct Rig: Sendable {
    let bluez: BlueZ
    let hci0: Adapter1
    let hci1: Adapter1

    static let company: UInt16 = 0xFFFF
    static let service = BluetoothUUID("6a1d0001-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let inbox = BluetoothUUID("6a1d0002-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let outbox = BluetoothUUID("6a1d0003-8f4e-4a5b-9c1e-5b0d7c7e0001")!
    static let longRead = BluetoothUUID("6a1d0004-8f4e-4a5b-9c1e-5b0d7c7e0001")!

    static func make() async throws -> Rig {
        let (bluez, hci0, hci1) = try await poweredAdapters()
        return Rig(bluez: bluez, hci0: hci0, hci1: hci1)
    }

    /// Scans on hci1 until a device matching `filter` satisfies `accept`, restarting discovery every 3 s
    /// (btvirt's single report per scan start can be lost under TCG).
    func discover(
        _ filter: DiscoveryFilter, timeout: Duration = .seconds(30),
        accept: @escaping @Sendable (Device1.Properties) -> Bool = { _ in true }
    ) async throws -> Device1.Properties {
        let scan = try await hci1.scan(filter: filter)
        let restarter = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(3))
                try? await scan.restartDiscovery()
            }
        }
        defer { restarter.cancel() }
        do {
            let found = try await within(timeout, "a matching device on hci1") {
                for await event in scan {
                    if case .gone = event { continue }
                    if accept(event.device) { return event.device }
                }
                throw ScenarioFailure("discovery ended without a match")
            }
            restarter.cancel()
            await scan.stopAndWait()
            return found
        } catch {
            restarter.cancel()
            await scan.stopAndWait()
            throw error
        }
    }
}
