import BlueZ
import DBus
import FoundationEssentials
import HandoffKit
import HandoffShared

/// The devices a transfer service keeps away after the gate dropped them (`TransferService.drop(_:keepingAwayFor:)`):
/// blocked in bluetoothd (`Device1.Blocked`: it disconnects them, and the kernel refuses their connections), then
/// let in again when the cooldown ends.
///
/// bluetoothd stores a block and makes the device permanent, so each one is written to `record` before it is made,
/// and a block that outlives the daemon that made it (killed, crashed, the machine switched off) is lifted when the
/// next one starts (``liftRecorded()``). Lifting forgets a device that bluetoothd would not have kept otherwise
/// (`Adapter1.RemoveDevice`, which also lifts its block), and only unblocks one that is paired, bonded or trusted.
/// A block the user made (bluetoothctl `block`) is never recorded here, so never lifted.
final class KeptAwayDevices: Sendable {
    /// One kept-away device: where it is, and whether lifting it should forget it.
    struct Entry: Hashable, Sendable {
        let device: ObjectPath
        let forget: Bool
    }

    private let bluez: BlueZ
    private let adapter: Adapter1
    private let record: URL?
    private let clock: any HandoffClock
    private let log: @Sendable (String) -> Void
    private let entries = Locked<[ObjectPath: Entry]>([:])
    private let lifts = Locked<[ObjectPath: Task<Void, Never>]>([:])

    /// Devices of `adapter` kept away, recorded in `record` (nil: not recorded, for tests).
    init(bluez: BlueZ, adapter: Adapter1, record: URL?, clock: any HandoffClock,
         log: @escaping @Sendable (String) -> Void) {
        self.bluez = bluez
        self.adapter = adapter
        self.record = record
        self.clock = clock
        self.log = log
    }

    /// Blocks `device` for `cooldown`, then lifts the block. Nothing when it is kept away already. A device that
    /// cannot be blocked is disconnected instead.
    func keepAway(_ device: ObjectPath, for cooldown: Duration) async {
        let handle = await bluez.device(at: device)
        let properties = try? await handle.properties()
        if properties?.blocked == true && entries.withLock({ $0[device] == nil }) {
            return                                              // the user's block, not ours
        }
        let entry = Entry(device: device, forget: !(properties.map { $0.paired || $0.bonded || $0.trusted } ?? false))
        guard entries.withLock({ table in
            guard table[device] == nil else { return false }
            table[device] = entry
            return true
        }) else { return }
        save()
        do throws(BlueZError) {
            try await handle.setBlocked(true)
            log("transfer service: keeping \(device) away for \(cooldown) (it wrote what no client of ours writes)")
        } catch {
            log("transfer service: could not block \(device) (\(error)); disconnecting it instead")
            entries.withLock { $0[device] = nil }
            save()
            try? await handle.disconnect(timeout: .seconds(5))
            return
        }
        let task = Task { [weak self, clock] in
            try? await clock.sleep(for: cooldown)
            await self?.lift(device)
        }
        lifts.withLock { $0[device] = task }
    }

    /// Lifts every block this process made, now (the service closes).
    func liftAll() async {
        for task in lifts.withLock({ table in defer { table.removeAll() }; return Array(table.values) }) {
            task.cancel()
        }
        for device in entries.withLock({ Array($0.keys) }) { await lift(device) }
    }

    /// Lifts the blocks that `record` lists on this adapter: a daemon before this one made them and could not lift
    /// them. Entries of other adapters stay for their own service.
    func liftRecorded() async {
        guard let record, let text = try? String(contentsOf: record, encoding: .utf8) else { return }
        let recorded = text.split(separator: "\n").compactMap(Self.entry(from:)).filter { adapter.path.isAncestor(of: $0.device) }
        guard !recorded.isEmpty else { return }
        entries.withLock { table in for entry in recorded where table[entry.device] == nil { table[entry.device] = entry } }
        for entry in recorded {
            log("transfer service: lifting the block of \(entry.device), left by an earlier daemon")
            await lift(entry.device)
        }
    }

    /// The devices kept away now.
    var current: Set<ObjectPath> { entries.withLock { Set($0.keys) } }

    private func lift(_ device: ObjectPath) async {
        lifts.withLock { $0[device] = nil }
        guard let entry = entries.withLock({ $0[device] }) else { return }
        let handle = await bluez.device(at: device)
        do throws(BlueZError) {
            if entry.forget {
                try await adapter.removeDevice(handle)
            } else {
                try await handle.setBlocked(false)
            }
        } catch where error.code == .doesNotExist || error.code == .unavailable(.deviceGone) {
            // Gone already: nothing is blocked.
        } catch {
            // bluetoothd is away or refused: the record keeps it for the next start.
            log("transfer service: could not lift the block of \(device): \(error)")
            return
        }
        entries.withLock { $0[device] = nil }
        save()
        log("transfer service: \(device) may connect again")
    }

    /// Writes the record (one `forget|keep PATH` line per entry, and other adapters' lines as they were),
    /// atomically; a failure is logged: the block is then lifted by this process only.
    private func save() {
        guard let record else { return }
        let others = ((try? String(contentsOf: record, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { line in Self.entry(from: line).map { !adapter.path.isAncestor(of: $0.device) } ?? false }
            .map { "\($0)\n" }
        let lines = entries.withLock { table in
            (table.values.map { "\($0.forget ? "forget" : "keep") \($0.device.rawValue)\n" } + others).sorted().joined()
        }
        do {
            try Data(lines.utf8).write(to: record, options: .atomic)
        } catch {
            log("transfer service: could not record kept-away devices in \(record.path): \(error)")
        }
    }

    private static func entry(from line: Substring) -> Entry? {
        let parts = line.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == "forget" || parts[0] == "keep",
              let path = ObjectPath(rawValue: String(parts[1])) else { return nil }
        return Entry(device: path, forget: parts[0] == "forget")
    }
}
