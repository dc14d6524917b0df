import Foundation
import HandoffNotes
import Testing

@Suite struct NoteRestorerTests {
    let temp: TemporaryDirectory
    let store: NoteStore
    let restorer: NoteRestorer
    let name: NoteName
    /// 2026-11-29 21:04:30 UTC.
    let arrival = Date(timeIntervalSince1970: 1_795_986_270)

    init() throws {
        temp = try TemporaryDirectory()
        store = try temp.store()
        restorer = NoteRestorer(store: store, timeZone: TimeZone(identifier: "UTC") ?? .current)
        name = try NoteName("groceries")
    }

    func incoming(_ content: String, device: String = "laptop") -> IncomingNote {
        IncomingNote(name: name, content: content, device: device, receivedAt: arrival)
    }

    @Test func createsANoteThatDoesNotExist() throws {
        let outcome = try restorer.restore(incoming("milk\n"))
        guard case .created(let note) = outcome else {
            Issue.record("expected created, got \(outcome)")
            return
        }
        #expect(note.name == name)
        #expect(try store.read(name).content == "milk\n")
        #expect(!outcome.isConflict)
    }

    @Test func sameContentWritesNothing() throws {
        try store.write("milk\n", to: name)
        let outcome = try restorer.restore(incoming("milk\n"))
        guard case .unchanged = outcome else {
            Issue.record("expected unchanged, got \(outcome)")
            return
        }
        #expect(try store.list().count == 1)
    }

    @Test func aLocallyWrittenNoteIsKeptAndTheIncomingOneBecomesAConflictCopy() throws {
        try store.write("eggs\n", to: name)
        let outcome = try restorer.restore(incoming("milk\n"))
        guard case .keptBoth(let local, let copy, let reason) = outcome else {
            Issue.record("expected keptBoth, got \(outcome)")
            return
        }
        #expect(reason == .localChanges)
        #expect(local.name == name)
        #expect(copy.name.rawValue == "groceries (from laptop, 2026-11-29 21.04)")
        #expect(copy.path.hasSuffix("/groceries (from laptop, 2026-11-29 21.04).md"))
        #expect(try store.read(name).content == "eggs\n")
        #expect(try store.read(copy.name).content == "milk\n")
        #expect(outcome.restored == copy)
        #expect(outcome.summary.contains("kept your note 'groceries'"))
    }

    @Test func aNoteOpenInAnEditorIsNeverOverwrittenEvenIfItCameFromARestore() throws {
        _ = try restorer.restore(incoming("v1\n"))
        try store.beginEditing(name)
        defer { store.endEditing(name) }
        let outcome = try restorer.restore(incoming("v2\n"))
        guard case .keptBoth(_, let copy, let reason) = outcome else {
            Issue.record("expected keptBoth, got \(outcome)")
            return
        }
        #expect(reason == .openInEditor)
        #expect(try store.read(name).content == "v1\n")
        #expect(try store.read(copy.name).content == "v2\n")
    }

    @Test func anUntouchedEarlierRestoreIsUpdatedInPlace() throws {
        _ = try restorer.restore(incoming("v1\n"))
        let outcome = try restorer.restore(incoming("v2\n"))
        guard case .updated(let note) = outcome else {
            Issue.record("expected updated, got \(outcome)")
            return
        }
        #expect(note.name == name)
        #expect(try store.read(name).content == "v2\n")
        #expect(try store.list().count == 1)
    }

    @Test func aRestoredNoteChangedHereIsKept() throws {
        _ = try restorer.restore(incoming("v1\n"))
        try store.write("v1 plus my local line\n", to: name)
        let outcome = try restorer.restore(incoming("v2\n"))
        guard case .keptBoth(_, _, let reason) = outcome else {
            Issue.record("expected keptBoth, got \(outcome)")
            return
        }
        #expect(reason == .localChanges)
        #expect(try store.read(name).content == "v1 plus my local line\n")
    }

    @Test func conflictCopiesAreNumberedAndIdenticalOnesReused() throws {
        try store.write("local\n", to: name)
        let first = try restorer.restore(incoming("a\n")).restored
        let second = try restorer.restore(incoming("b\n")).restored
        let again = try restorer.restore(incoming("a\n")).restored
        #expect(first.name.rawValue == "groceries (from laptop, 2026-11-29 21.04)")
        #expect(second.name.rawValue == "groceries (from laptop, 2026-11-29 21.04) 2")
        #expect(again == first)
        #expect(try store.list().count == 3)
    }

    @Test func deviceNamesCannotEscapeTheDirectory() throws {
        try store.write("local\n", to: name)
        let copy = try restorer.restore(incoming("x\n", device: "../../evil/box")).restored
        #expect(copy.name.rawValue == "groceries (from ..-..-evil-box, 2026-11-29 21.04)")
        #expect(copy.path.hasPrefix(store.directory + "/"))
    }

    @Test func longNamesStayValidInConflictCopies() throws {
        let long = try NoteName(String(repeating: "n", count: NoteName.maximumLength))
        try store.write("local\n", to: long)
        let note = IncomingNote(name: long, content: "x\n", device: "laptop", receivedAt: arrival)
        let copy = try restorer.restore(note).restored
        #expect(copy.name.rawValue.utf8.count <= NoteName.maximumLength)
        #expect(copy.name.rawValue.hasSuffix("(from laptop, 2026-11-29 21.04)"))
    }
}
