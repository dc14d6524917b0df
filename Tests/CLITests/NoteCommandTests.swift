import Foundation
import HandoffNotes
import Testing

@Suite struct NoteCommandTests {
    @Test func stdinNoteIsSavedThenShownAndListedEvenWithoutTheDaemon() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let edit = try handoff.run(["note", "edit", "groceries", "--stdin"], input: "# Groceries\nmilk\neggs\n")
        // The note is saved, but it cannot be offered: the command says so and exits 69.
        #expect(edit.status == 69)
        #expect(edit.error.contains("handoff: saved note 'groceries'"))
        #expect(edit.error.contains("the handoff daemon is not reachable"))
        #expect(edit.error.contains("saved locally but not offered"))

        let show = try handoff.run(["note", "show", "groceries"])
        #expect(show.status == 0)
        #expect(show.output == "# Groceries\nmilk\neggs\n")

        let list = try handoff.run(["note", "list"])
        #expect(list.status == 0)
        #expect(list.output.hasPrefix("groceries  "))
        #expect(list.output.hasSuffix("  Groceries\n"))

        #expect(try handoff.run(["note", "list", "--names"]).output == "groceries\n")
    }

    @Test func listJSONIsStableAndDecodable() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        try handoff.run(["note", "edit", "b", "--stdin"], input: "Beta\n")
        try handoff.run(["note", "edit", "a.md", "--stdin"], input: "Alpha\nbody\n")
        let list = try handoff.run(["note", "list", "--json"])
        #expect(list.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]]
        let first = try #require(object?.first)
        #expect(Set(first.keys) == ["modified", "name", "path", "sha256", "sizeBytes", "title"])
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let notes = try decoder.decode([NoteMetadata].self, from: Data(list.output.utf8))
        #expect(notes.map(\.name.rawValue) == ["a", "b"])
        #expect(notes.map(\.title) == ["Alpha", "Beta"])
        #expect(notes[0].size == 11)
        #expect(notes[0].hash == ContentHash(of: "Alpha\nbody\n"))
        #expect(notes[0].path == handoff.notesDirectory + "/a.md")
    }

    @Test func anEmptyStoreSaysSoOnStandardErrorOnly() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let list = try handoff.run(["note", "list"])
        #expect(list.status == 0)
        #expect(list.output.isEmpty)
        #expect(list.error.contains("no notes yet in \(handoff.notesDirectory)"))
        let json = try handoff.run(["note", "list", "--json"]).output
        #expect((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any])?.isEmpty == true)
    }

    @Test func missingNoteExits66() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let show = try handoff.run(["note", "show", "nothing"])
        #expect(show.status == 66)
        #expect(show.error.hasPrefix("handoff: error: no note named 'nothing'"))
    }

    @Test func nonTextInputIsRefusedAndTheNoteKept() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        try handoff.run(["note", "edit", "n", "--stdin"], input: "kept\n")
        let bad = try handoff.run(["note", "edit", "n", "--stdin"], inputData: Data([0x66, 0xFF, 0xFE]))
        #expect(bad.status == 65)
        #expect(bad.error.contains("standard input is not UTF-8 text"))
        #expect(try handoff.run(["note", "show", "n"]).output == "kept\n")
    }

    @Test func editorSessionSavesTheNote() throws {
        let handoff = try HandoffBinary()
        defer { handoff.removeHome() }
        let script = handoff.home + "/editor.sh"
        try "#!/bin/sh\nprintf 'From the editor\\nline\\n' > \"$1\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let edit = try handoff.run(["note", "edit", "e"], environment: ["EDITOR": script])
        #expect(edit.status == 69)
        #expect(edit.error.contains("saved note 'e'"))
        #expect(try handoff.run(["note", "show", "e"]).output == "From the editor\nline\n")
        let failing = try handoff.run(["note", "edit", "f"], environment: ["VISUAL": "false", "EDITOR": script])
        #expect(failing.error.contains("the editor exited with status 1"))
        #expect(failing.error.contains("note 'f' was not saved"))
        #expect(!failing.error.contains("saved locally"), "nothing was saved, so nothing may be claimed")
    }
}
