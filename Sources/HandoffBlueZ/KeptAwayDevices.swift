import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import HandoffShared

/// The devices a transfer service keeps away after the gate dropped them (`TransferService.drop(_:keepingAwayFor:)`):
/// disconnected at once, and again each time they connect during the cooldown, before they can resolve a service or
/// write a frame. In memory only: nothing of it outlives the daemon, and nothing is stored in bluetoothd.
///
/// Why not bluetoothd's `Device1.Blocked`: it puts the address on the kernel's reject list, and the kernel (6.1 and
/// 6.12) then leaves a blocked device's new connection up, unknown to bluetoothd, until the device itself gives up
/// (about 30 s in the live attack, Docs/bluez.md). On Linux 6.1 a controller that is a peripheral to a stranger does
/// not connect out, so every continue and share of the machine failed meanwhile. Disconnecting keeps each of the
/// stranger's links to the moment bluetoothd reports it.
final class KeptAwayDevices: Sendable {
    private let bluez: BlueZ
    private let clock: any HandoffClock
    private let log: @Sendable (String) -> Void
    private let until = Locked<[ObjectPath: HandoffInstant]>([:])
    private let watcher: Task<Void, Never>

    /// Devices of `adapter` kept away, watched through its connections (``Adapter1/connections()``).
    init(bluez: BlueZ, adapter: Adapter1, clock: any HandoffClock, log: @escaping @Sendable (String) -> Void) async {
        self.bluez = bluez
        self.clock = clock
        self.log = log
        let connections = await adapter.connections()
        let until = self.until
        watcher = Task {
            for await device in connections {
                guard Self.isKeptAway(device, in: until, at: clock.now) else { continue }
                log("transfer service: \(device) is kept away (cooldown); disconnecting it again")
                try? await bluez.device(at: device).disconnect(timeout: .seconds(5))
            }
        }
    }

    deinit { watcher.cancel() }

    /// Disconnects `device` and keeps it away for `cooldown` from now (a later drop extends it).
    func keepAway(_ device: ObjectPath, for cooldown: Duration) async {
        let deadline = clock.now + cooldown
        until.withLock { $0[device] = max($0[device] ?? deadline, deadline) }
        log("transfer service: keeping \(device) away for \(cooldown) (it wrote what no client of ours writes)")
        do throws(BlueZError) {
            try await bluez.device(at: device).disconnect(timeout: .seconds(5))
        } catch {
            log("transfer service: could not disconnect \(device): \(error)")
        }
    }

    /// Whether `device` is kept away now.
    func isKeptAway(_ device: ObjectPath) -> Bool {
        Self.isKeptAway(device, in: until, at: clock.now)
    }

    /// Whether `device`'s cooldown in `until` runs at `now`; an ended one is forgotten.
    private static func isKeptAway(_ device: ObjectPath, in until: Locked<[ObjectPath: HandoffInstant]>,
                                   at now: HandoffInstant) -> Bool {
        until.withLock { table in
            guard let deadline = table[device] else { return false }
            if now >= deadline { table[device] = nil }
            return now < deadline
        }
    }

    /// Stops watching (the service closes).
    func close() {
        watcher.cancel()
    }
}
