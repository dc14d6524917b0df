import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Opens a note in the user's editor and reports every save while it runs.
///
/// The editor inherits the terminal. While it runs, the note is marked as being edited (so a restore arriving
/// meanwhile never overwrites it, see ``NoteRestorer``), and each save that changes the text calls `onSave` with
/// the note as saved: its title (first line) and content. Saves are noticed through inotify (see
/// ``FileChangeWatcher``), not by polling. A save is read only while no process has the note open for writing
/// (a read lease, ``NoteStore/readSaved(_:)``) and reported only if no write began after the save that woke the
/// reader, so an editor that rewrites the file in place (truncate, then write) never has its half-written file
/// reported. The file is read once more after the editor exits, so the last save is never missed. Callbacks run one at a time, in order. While the editor runs, this process catches SIGINT and
/// SIGQUIT with a handler that does nothing, so Ctrl-C goes to the editor alone instead of killing handoff under it.
public struct NoteEditor: Sendable {
    /// The editor to run.
    public var command: EditorCommand

    /// Creates an editor session runner.
    public init(command: EditorCommand) {
        self.command = command
    }

    /// Edits a note (which may not exist yet) and returns when the editor exits.
    /// - Parameters:
    ///   - name: The note.
    ///   - store: The store holding it.
    ///   - onSave: Called after each save that changed the text.
    /// - Throws: ``NoteError`` when the editor cannot be started or the directory cannot be watched.
    public func edit(
        _ name: NoteName,
        in store: NoteStore,
        onSave: @escaping @Sendable (Note) async -> Void
    ) async throws(NoteError) -> EditSession {
        try FileSystem.makeDirectory(store.directory)
        try store.beginEditing(name)
        defer { store.endEditing(name) }
        let initial = try? store.read(name)
        let watcher = try FileChangeWatcher(directory: store.directory, fileName: name.fileName)
        let reporter = Task {
            var last = initial?.metadata.hash
            var saves = 0
            func check(settled: () -> Bool = { true }) async {
                guard let note = try? store.readSaved(name), note.metadata.hash != last, settled() else { return }
                last = note.metadata.hash
                saves += 1
                await onSave(note)
            }
            for await saved in watcher.changes { await check { watcher.isSettled(since: saved) } }
            await check()
            return saves
        }
        let status: Int32
        do {
            status = try await run(path: store.path(of: name))
        } catch {
            watcher.stop()
            _ = await reporter.value
            throw error
        }
        watcher.stop()
        let saves = await reporter.value
        return EditSession(note: try? store.read(name), saves: saves, editorStatus: status)
    }

    /// Runs the editor on a path and waits for it without blocking a thread.
    private func run(path: String) async throws(NoteError) -> Int32 {
        let process = Process()
        let (executable, arguments) = command.invocation
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments + [path]
        let (exits, exited) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exited.yield(finished.terminationStatus)
            exited.finish()
        }
        // Ctrl-C and Ctrl-\ reach the whole foreground process group; they belong to the editor, so this process
        // catches them with a no-op handler (as git does) while the editor runs. A caught signal, unlike an
        // ignored one, is reset to its default in the editor by exec.
        let previousInterrupt = signal(SIGINT, { _ in })
        let previousQuit = signal(SIGQUIT, { _ in })
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        do {
            try process.run()
        } catch {
            throw NoteError(
                .editorFailed, "cannot start the editor '\(command.commandLine)': \(error.localizedDescription)")
        }
        for await status in exits { return status }
        return -1
    }
}
