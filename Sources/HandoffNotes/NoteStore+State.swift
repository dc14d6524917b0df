import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The store's hidden per-note state: who is editing a note, and what the last restore wrote.
extension NoteStore {
    private func statePath(_ name: NoteName, _ kind: String) -> String {
        directory + "/." + name.fileName + "." + kind
    }

    /// Marks a note as open in an editor by this process, until ``endEditing(_:)``. Each process has its own mark
    /// (`.NAME.md.editing.PID`), so two sessions on one note never clear each other's.
    public func beginEditing(_ name: NoteName) throws(NoteError) {
        try FileSystem.makeDirectory(directory)
        let temporary = try FileSystem.writeTemporary(Data(), in: directory, for: name.fileName)
        try FileSystem.replace(editingMarkPrefix(name) + String(getpid()), with: temporary)
    }

    /// Removes this process's editing mark.
    public func endEditing(_ name: NoteName) {
        unlink(editingMarkPrefix(name) + String(getpid()))
    }

    /// Whether a live process has the note open in an editor (`handoff note edit`). Marks left by processes that
    /// no longer exist do not count. (A recycled process id can only make this answer "yes" wrongly, which
    /// errs on the safe side: a conflict copy instead of an overwrite.)
    public func isBeingEdited(_ name: NoteName) -> Bool {
        let prefix = "." + name.fileName + ".editing."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        return entries.contains { entry in
            guard entry.hasPrefix(prefix), let pid = pid_t(entry.dropFirst(prefix.count)), pid > 0 else {
                return false
            }
            return kill(pid, 0) == 0 || errno == EPERM
        }
    }

    private func editingMarkPrefix(_ name: NoteName) -> String {
        directory + "/." + name.fileName + ".editing."
    }

    /// The hash of the content the last restore wrote to this note, if a restore wrote it.
    func restoredHash(_ name: NoteName) -> ContentHash? {
        guard let data = try? FileSystem.read(statePath(name, "restored")) else { return nil }
        return Self.restoredHash(from: data)
    }

    /// A restore record's bytes as the hash it holds (nil when they are not UTF-8 or hold only spaces); no disk.
    static func restoredHash(from data: Data) -> ContentHash? {
        guard let text = String(data: data, encoding: .utf8) else { return nil }
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return hex.isEmpty ? nil : ContentHash(hex: hex)
    }

    /// Records that a restore wrote content with this hash to the note.
    func recordRestore(_ name: NoteName, hash: ContentHash) throws(NoteError) {
        let temporary = try FileSystem.writeTemporary(Data(hash.hex.utf8), in: directory, for: name.fileName)
        try FileSystem.replace(statePath(name, "restored"), with: temporary)
    }
}
