import Foundation
@testable import HandoffNotes
import Testing

@Suite struct NoteStoreTests {
    @Test func defaultDirectoryFollowsXDG() throws {
        #expect(try NoteStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"])
            == "/x/data/handoff/notes")
        #expect(try NoteStore.defaultDirectory(environment: ["HOME": "/home/u"])
            == "/home/u/.local/share/handoff/notes")
        // The XDG specification says relative paths are invalid and must be ignored.
        #expect(try NoteStore.defaultDirectory(environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/u"])
            == "/home/u/.local/share/handoff/notes")
        #expect(throws: NoteError.self) { try NoteStore.defaultDirectory(environment: [:]) }
    }

    @Test func writesAndReadsBackWithMetadata() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("groceries")
        let written = try store.write("# Groceries\nmilk\n", to: name)
        #expect(written.path == temp.path + "/data/handoff/notes/groceries.md")
        #expect(written.title == "Groceries")
        #expect(written.size == 17)
        let note = try store.read(name)
        #expect(note.content == "# Groceries\nmilk\n")
        #expect(note.metadata == written)
        #expect(abs(note.metadata.modified.timeIntervalSinceNow) < 600)
    }

    /// A note file that starts with a byte-order mark (as some editors write) reads back as exactly its bytes:
    /// Foundation's UTF-8 decoding dropped the mark, so saving the note again changed the file and its text no
    /// longer matched its hash. Found by the note-file fuzz target (a file of just EF BB BF).
    @Test func aByteOrderMarkIsKeptAndLeftOutOfTheTitle() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("marked")
        try store.write("made by the test, replaced below", to: name)   // the store makes its directory
        for bytes in [[0xEF, 0xBB, 0xBF], [0xEF, 0xBB, 0xBF] + Array("# Plan\nsteps\n".utf8)] as [[UInt8]] {
            try Data(bytes).write(to: URL(fileURLWithPath: store.path(of: name)))
            let note = try store.read(name)
            #expect(Data(note.content.utf8) == Data(bytes))
            #expect(note.metadata.size == bytes.count)
            #expect(note.metadata.hash == ContentHash(of: Data(bytes)))
            #expect(note.title == (bytes.count == 3 ? "marked" : "Plan"))
            let saved = try store.write(note.content, to: name)
            #expect(try Data(contentsOf: URL(fileURLWithPath: saved.path)) == Data(bytes))
        }
    }

    @Test func hashIsSHA256OfTheBytes() {
        #expect(ContentHash(of: "abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentHash(of: "").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func overwritingLeavesNoTemporaryFiles() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("n")
        try store.write("one", to: name)
        try store.write("two", to: name)
        #expect(try store.read(name).content == "two")
        let entries = try FileManager.default.contentsOfDirectory(atPath: store.directory)
        #expect(entries == ["n.md"])
    }

    @Test func listsNotesByNameIgnoringHiddenAndOtherFiles() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        try store.write("B", to: NoteName("beta"))
        try store.write("A", to: NoteName("alpha"))
        try "x".write(toFile: store.directory + "/.hidden.md", atomically: true, encoding: .utf8)
        try "x".write(toFile: store.directory + "/readme.txt", atomically: true, encoding: .utf8)
        #expect(try store.list().map(\.name.rawValue) == ["alpha", "beta"])
    }

    @Test func missingDirectoryIsAnEmptyStore() throws {
        let temp = try TemporaryDirectory()
        #expect(try temp.store().list().isEmpty)
    }

    @Test func readingReportsMissingAndNonTextNotes() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        #expect(throws: NoteError.self) { try store.read(NoteName("absent")) }
        do {
            _ = try store.read(NoteName("absent"))
        } catch {
            #expect(error.code == .notFound)
        }
        try store.write("", to: NoteName("binary"))
        try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: store.path(of: NoteName("binary"))))
        do {
            _ = try store.read(NoteName("binary"))
            Issue.record("expected notText")
        } catch {
            #expect(error.code == .notText)
        }
        // Listing never hides a file from the user, even one that is not text.
        #expect(try store.list().map(\.name.rawValue) == ["binary"])
    }

    @Test func createRefusesToReplaceAnExistingNote() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("n")
        #expect(try store.create("first", as: name) != nil)
        #expect(try store.create("second", as: name) == nil)
        #expect(try store.read(name).content == "first")
    }

    @Test func titleIsTheFirstLine() {
        #expect(Note.title(of: "Groceries\nmilk", fallback: "n") == "Groceries")
        #expect(Note.title(of: "## Plan  \nx", fallback: "n") == "Plan")
        #expect(Note.title(of: "", fallback: "n") == "n")
        #expect(Note.title(of: "\nsecond", fallback: "n") == "n")
        // A note without line breaks is not all title: the title is cut, so it does not travel twice.
        let long = Note.title(of: String(repeating: "a", count: 1_100_000), fallback: "n")
        #expect(long.count == Note.maximumTitleLength)
        #expect(long.hasSuffix("…"))
        #expect(Note.title(of: "# " + String(repeating: "b", count: 80) + "\nrest", fallback: "n")
            == String(repeating: "b", count: 80))
        #expect(Note.title(of: "Plan\r\nitems", fallback: "n") == "Plan")
    }

    @Test func editingMarksAreVisibleOnlyWhileTheProcessLives() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("n")
        #expect(!store.isBeingEdited(name))
        try store.beginEditing(name)
        #expect(store.isBeingEdited(name))
        store.endEditing(name)
        #expect(!store.isBeingEdited(name))
        // A mark left by a process that has exited does not count.
        try "".write(toFile: store.directory + "/.n.md.editing.999999999", atomically: true, encoding: .utf8)
        #expect(!store.isBeingEdited(name))
        // Another live session's mark counts, and ending ours leaves it in place.
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/bin/sleep")
        other.arguments = ["60"]
        try other.run()
        defer { other.terminate() }
        try "".write(toFile: store.directory + "/.n.md.editing.\(other.processIdentifier)", atomically: true,
                     encoding: .utf8)
        try store.beginEditing(name)
        store.endEditing(name)
        #expect(store.isBeingEdited(name))
        #expect(!store.isBeingEdited(try NoteName("other note")))
    }
}

/// The decoders the reads use once they have a file's bytes (`NoteStore.decode`, `NoteStore.restoredHash(from:)`),
/// factored out so the `note-file` fuzz target feeds them without the disk: they give what the reads give.
@Suite struct NoteDecodingTests {
    @Test func decodingTheBytesGivesWhatReadingTheFileGives() throws {
        let temp = try TemporaryDirectory()
        let store = try temp.store()
        let name = try NoteName("groceries")
        let written = try store.write("# Groceries ☕\nmilk\n", to: name)
        let (content, metadata) = try store.decode(Data("# Groceries ☕\nmilk\n".utf8), of: name,
                                                   modified: written.modified, lenient: false)
        #expect(content == (try store.read(name)).content)
        #expect(metadata == written)
    }

    @Test func invalidUTF8IsRefusedStrictlyAndReplacedLeniently() throws {
        let store = NoteStore(directory: "/nonexistent")
        let name = try NoteName("n")
        let bytes = Data([0x61, 0xFF, 0x62])
        #expect(throws: NoteError.self) {
            _ = try store.decode(bytes, of: name, modified: Date(timeIntervalSince1970: 0), lenient: false)
        }
        let (lenient, metadata) = try store.decode(bytes, of: name, modified: Date(timeIntervalSince1970: 0),
                                                   lenient: true)
        #expect(lenient == "a\u{FFFD}b")
        #expect(metadata.size == 3)
        #expect(metadata.hash == ContentHash(of: bytes))
    }

    @Test func aRestoreRecordIsItsTrimmedHexOrNothing() {
        #expect(NoteStore.restoredHash(from: Data("abc123\n".utf8))?.hex == "abc123")
        #expect(NoteStore.restoredHash(from: Data(" \n".utf8)) == nil)
        #expect(NoteStore.restoredHash(from: Data([0xFF])) == nil)
    }
}
