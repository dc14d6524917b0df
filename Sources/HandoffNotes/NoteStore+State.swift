import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The store's hidden per-note state: who is editing a note, and what the last restore wrote.
extension NoteStore {
    private func statePath(_ name: NoteName, _ kind: String) -> String {
        directory + "/." + name.fileName + "." + kind
    }

    /// Marks a note as open in an editor by this process, until ``endEditing(_:)``.
    public func beginEditing(_ name: NoteName) throws(NoteError) {
        try FileSystem.makeDirectory(directory)
        let temporary = try FileSystem.writeTemporary(Data(String(getpid()).utf8), in: directory, for: name.fileName)
        try FileSystem.replace(statePath(name, "editing"), with: temporary)
    }

    /// Removes this process's editing mark.
    public func endEditing(_ name: NoteName) {
        let path = statePath(name, "editing")
        if editorProcess(name) == getpid() { unlink(path) }
    }

    /// Whether a live process has the note open in an editor (`handoff note edit`). A mark left by a process
    /// that no longer exists does not count.
    public func isBeingEdited(_ name: NoteName) -> Bool {
        guard let pid = editorProcess(name) else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private func editorProcess(_ name: NoteName) -> pid_t? {
        guard let text = try? String(contentsOfFile: statePath(name, "editing"), encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The hash of the content the last restore wrote to this note, if a restore wrote it.
    func restoredHash(_ name: NoteName) -> ContentHash? {
        guard let text = try? String(contentsOfFile: statePath(name, "restored"), encoding: .utf8) else { return nil }
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return hex.isEmpty ? nil : ContentHash(hex: hex)
    }

    /// Records that a restore wrote content with this hash to the note.
    func recordRestore(_ name: NoteName, hash: ContentHash) throws(NoteError) {
        let temporary = try FileSystem.writeTemporary(Data(hash.hex.utf8), in: directory, for: name.fileName)
        try FileSystem.replace(statePath(name, "restored"), with: temporary)
    }
}
