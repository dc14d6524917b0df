import Foundation

/// Writes continued notes into the store without ever losing local text.
///
/// The policy, in order:
/// 1. No local note of that name: create it.
/// 2. The local note has exactly the incoming text: write nothing (``RestoreOutcome/unchanged(_:)``).
/// 3. The local note is not open in an editor and its text is exactly what the previous restore wrote (so it was
///    not changed here): replace it (``RestoreOutcome/updated(_:)``).
/// 4. Otherwise (open in an editor, or changed or written locally): keep it untouched and write the incoming text
///    as a conflict copy named `NAME (from DEVICE, YYYY-MM-DD HH.MM)`, adding ` 2`, ` 3`, … if that name is
///    taken by different text; an existing copy with the same text is reused (``RestoreOutcome/keptBoth``).
///
/// New files are created with link(2), which fails rather than replace a file that appeared meanwhile.
public struct NoteRestorer: Sendable {
    /// The store to restore into.
    public var store: NoteStore
    /// The time zone of the time in conflict-copy names.
    public var timeZone: TimeZone

    /// Creates a restorer.
    public init(store: NoteStore, timeZone: TimeZone = .current) {
        self.store = store
        self.timeZone = timeZone
    }

    /// Restores one incoming note by the policy above.
    public func restore(_ incoming: IncomingNote) throws(NoteError) -> RestoreOutcome {
        let incomingHash = ContentHash(of: incoming.content)
        let name = incoming.name
        if let created = try store.create(incoming.content, as: name) {
            try store.recordRestore(name, hash: incomingHash)
            return .created(created)
        }
        let local = try store.read(name).metadata
        if local.hash == incomingHash { return .unchanged(local) }
        let editing = store.isBeingEdited(name)
        if !editing, store.restoredHash(name) == local.hash {
            let updated = try store.write(incoming.content, to: name)
            try store.recordRestore(name, hash: incomingHash)
            return .updated(updated)
        }
        let copy = try writeConflictCopy(incoming, hash: incomingHash)
        return .keptBoth(local: local, copy: copy, reason: editing ? .openInEditor : .localChanges)
    }

    private func writeConflictCopy(_ incoming: IncomingNote, hash: ContentHash) throws(NoteError) -> NoteMetadata {
        let base = conflictName(for: incoming)
        for attempt in 1...1000 {
            let name = try NoteName(attempt == 1 ? base : base + " \(attempt)")
            if let created = try store.create(incoming.content, as: name) { return created }
            if let existing = try? store.read(name), existing.metadata.hash == hash { return existing.metadata }
        }
        throw NoteError(.io, "cannot find a free name for a conflict copy of '\(incoming.name)'")
    }

    /// `NAME (from DEVICE, 2026-11-29 21.04)`, shortened to stay a valid ``NoteName``.
    func conflictName(for incoming: IncomingNote) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: incoming.receivedAt)
        let stamp = String(
            format: "%04d-%02d-%02d %02d.%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0)
        var device = String(incoming.device.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F ? "-" : Character(scalar)
        }).trimmingCharacters(in: .whitespaces)
        if device.isEmpty { device = "another device" }
        if device.count > 40 { device = String(device.prefix(40)) }
        let suffix = " (from \(device), \(stamp))"
        var name = incoming.name.rawValue
        // Leave room for the suffix and a " 999" counter.
        while (name + suffix).utf8.count + 4 > NoteName.maximumLength, !name.isEmpty { name.removeLast() }
        return name.trimmingCharacters(in: .whitespaces) + suffix
    }
}
