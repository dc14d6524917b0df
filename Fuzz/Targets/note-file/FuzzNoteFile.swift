import Foundation
import FuzzSupport
@testable import HandoffNotes

/// Note files: whatever bytes lie in the notes directory (the user's editor, another program, a sync tool), and a
/// continued note's name and text from a peer. The store reads, lists and titles them; the restorer writes an
/// incoming note beside them. Checks: a note that reads back is the bytes on disk, and a restore never loses the
/// local text.
private let directory: String = {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-fuzz-notes-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNoteFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    let store = NoteStore(directory: directory)
    let pieces = Fuzz.pieces(bytes)
    let file = Data(pieces.first ?? [])
    guard let name = try? NoteName("n") else { fatalError("'n' is not a note name") }
    let path = store.path(of: name)
    guard FileManager.default.createFile(atPath: path, contents: file) else { fatalError("cannot write \(path)") }
    if let note = try? store.read(name) {
        guard Data(note.content.utf8) == file else { fatalError("the note read is not the bytes on disk") }
        _ = Note.title(of: note.content, fallback: "n")
    }
    _ = try? store.list()
    if pieces.count > 1 {
        let incomingName = NoteName.sanitized(String(decoding: pieces[1], as: UTF8.self))
        let content = String(decoding: pieces.dropFirst(2).flatMap { $0 }, as: UTF8.self)
        let before = try? FileSystem.read(store.path(of: incomingName))
        let incoming = IncomingNote(name: incomingName, content: content, device: "fuzz",
                                    receivedAt: Date(timeIntervalSince1970: 1_700_000_000))
        _ = try? NoteRestorer(store: store).restore(incoming)
        // Nothing here was written by a restore, so a local note must come out of it byte for byte.
        if let before, (try? FileSystem.read(store.path(of: incomingName))) != before {
            fatalError("a restore replaced local text it had not written")
        }
    }
    if let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) {
        for entry in entries { unlink(directory + "/" + entry) }
    }
    return 0
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = directory
    Fuzz.writeSeedsIfAsked([
        Fuzz.joined([Array("Groceries\nmilk\neggs\n".utf8)]),
        Fuzz.joined([Array("# Title ☕\r\n\r\nbody".utf8), Array("n".utf8), Array("new text".utf8)]),
        Fuzz.joined([Array("local".utf8), Array("../../etc/passwd".utf8), Array("new text".utf8)]),
        Fuzz.joined([[0xFF, 0xFE, 0x00, 0x41], Array(".hidden\u{0}name".utf8), [0xC3]]),
    ])
    return 0
}
