import Foundation
import HandoffNotes
import Testing

/// Collects what the editor session reports.
actor SaveLog {
    private(set) var saves: [(title: String, content: String, editing: Bool)] = []

    func append(_ note: Note, editing: Bool) {
        saves.append((note.title, note.content, editing))
    }
}

@Suite struct NoteEditorTests {
    /// An editor script that saves twice (once in place, once by rename as vim does), each time waiting for the
    /// test's callback to acknowledge the save, so every save is observed separately.
    static let twoSaves = """
        note="$1"
        dir=$(dirname "$note")
        wait_for() { i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 600 ] && exit 3; sleep 0.05; done; }
        printf 'First title\\nbody one\\n' > "$note"
        wait_for "$ACK/1"
        printf 'First title\\nbody one\\n' > "$note"
        printf '# Second title\\nbody two\\n' > "$dir/.save-tmp"
        mv "$dir/.save-tmp" "$note"
        wait_for "$ACK/2"
        exit 0
        """

    @Test func reportsEverySaveWithTitleAndContent() async throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let acks = temp.path + "/acks"
        try FileManager.default.createDirectory(atPath: acks, withIntermediateDirectories: true)
        let script = try temp.script("editor.sh", Self.twoSaves)
        let editor = NoteEditor(command: EditorCommand(commandLine: "ACK='\(acks)' '\(script)'"))
        let name = try NoteName("trip")
        let log = SaveLog()
        let session = try await editor.edit(name, in: store) { note in
            await log.append(note, editing: store.isBeingEdited(name))
            let count = await log.saves.count
            _ = FileManager.default.createFile(atPath: acks + "/\(count)", contents: nil)
        }
        let saves = await log.saves
        #expect(session.editorStatus == 0)
        #expect(session.saves == 2)
        #expect(saves.map(\.title) == ["First title", "Second title"])
        #expect(saves.map(\.content) == ["First title\nbody one\n", "# Second title\nbody two\n"])
        #expect(saves.allSatisfy { $0.editing }, "the note must be marked as being edited while the editor runs")
        #expect(session.note?.content == "# Second title\nbody two\n")
        #expect(!store.isBeingEdited(name))
    }

    @Test func aSaveJustBeforeExitIsNotMissedAndUnchangedTextIsNotReported() async throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("n")
        try store.write("same\n", to: name)
        let script = try temp.script("editor.sh", "printf 'same\\n' > \"$1\"; printf 'new\\n' > \"$1\"\n")
        let log = SaveLog()
        let session = try await NoteEditor(command: EditorCommand(commandLine: "'\(script)'"))
            .edit(name, in: store) { await log.append($0, editing: true) }
        #expect(await log.saves.map(\.content) == ["new\n"])
        #expect(session.saves == 1)
    }

    @Test func anEditorRewritingInPlaceNeverHasAHalfWrittenFileReported() async throws {
        // Each `>` truncates the note and then writes it: between the two the file is empty. A reader woken by
        // the previous save must not report that empty note (it would be advertised, and continued, blank).
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let script = try temp.script(
            "editor.sh", "i=0; while [ $i -lt 300 ]; do i=$((i+1)); printf 'version %d\\n' $i > \"$1\"; done\n")
        let log = SaveLog()
        let session = try await NoteEditor(command: EditorCommand(commandLine: "'\(script)'"))
            .edit(NoteName("busy"), in: store) { await log.append($0, editing: true) }
        let saves = await log.saves.map(\.content)
        #expect(!saves.isEmpty)
        let torn = saves.filter { !($0.hasPrefix("version ") && $0.hasSuffix("\n")) }
        #expect(torn.isEmpty, "half-written notes were reported: \(torn)")
        #expect(saves.last == "version 300\n")
        #expect(session.note?.content == "version 300\n")
    }

    @Test func quittingWithoutSavingANewNoteLeavesNothing() async throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let session = try await NoteEditor(command: EditorCommand(commandLine: "true"))
            .edit(NoteName("new"), in: store) { _ in }
        #expect(session.note == nil)
        #expect(session.saves == 0)
        #expect(try store.list().isEmpty)
    }

    @Test func aFailingEditorKeepsWhatItSaved() async throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let script = try temp.script("editor.sh", "printf 'kept\\n' > \"$1\"; exit 7\n")
        let session = try await NoteEditor(command: EditorCommand(commandLine: "'\(script)'"))
            .edit(NoteName("n"), in: store) { _ in }
        #expect(session.editorStatus == 7)
        #expect(session.note?.content == "kept\n")
    }

    @Test func editorComesFromVisualThenEditorThenVi() {
        #expect(EditorCommand(environment: ["VISUAL": "nano", "EDITOR": "ed"]).commandLine == "nano")
        #expect(EditorCommand(environment: ["VISUAL": " ", "EDITOR": "code --wait"]).commandLine == "code --wait")
        #expect(EditorCommand(environment: [:]).commandLine == "vi")
    }

    @Test func pathsWithSpacesReachTheEditorAsOneArgument() async throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let script = try temp.script("editor.sh", "[ $# -eq 1 ] && printf '%s\\n' \"$1\" > \"$1\"\n")
        let name = try NoteName("a note; with $(spaces)")
        let session = try await NoteEditor(command: EditorCommand(commandLine: "'\(script)'"))
            .edit(name, in: store) { _ in }
        #expect(session.note?.content == store.path(of: name) + "\n")
    }

    @Test func theEditorReceivesCtrlCNormally() async throws {
        // The session catches SIGINT for itself; the editor must still have the default action, not "ignored".
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let script = try temp.script("editor.sh", "sed -n 's/^SigIgn:[[:space:]]*//p' /proc/self/status > \"$1\"\n")
        let session = try await NoteEditor(command: EditorCommand(commandLine: "'\(script)'"))
            .edit(NoteName("signals"), in: store) { _ in }
        let text = try #require(session.note?.content).trimmingCharacters(in: .whitespacesAndNewlines)
        let mask = try #require(UInt64(text, radix: 16))
        #expect(mask & (1 << (UInt64(SIGINT) - 1)) == 0, "SIGINT is ignored in the editor")
        #expect(mask & (1 << (UInt64(SIGQUIT) - 1)) == 0, "SIGQUIT is ignored in the editor")
    }
}
