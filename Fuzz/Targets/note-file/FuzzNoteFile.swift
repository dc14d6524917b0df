import Foundation
import FuzzSupport
@testable import HandoffNotes

/// Note files: whatever bytes lie in the notes directory (the user's editor, another program, a sync tool), and a
/// continued note's name and text from a peer. The store reads, lists and titles them; the restorer writes an
/// incoming note beside them. Checks: a note that reads back is the bytes on disk, and a restore never loses the
/// local text.
///
/// Every input goes through the decoders the store uses once it has a file's bytes, in memory: the note file
/// through `NoteStore.decode` (strict, as `read` does, and lenient, as `list` does) and its title, the same bytes as
/// a restore record (`NoteStore.restoredHash(from:)`), and the peer's name and text through `NoteName.sanitized`,
/// `NoteRestorer.conflictName(for:)` and `ContentHash`. One input in 64 (by a hash of its bytes, so the choice is
/// the same on every run) also goes the whole way through the disk: the file written, read back with
/// `NoteStore.read`, listed, and the incoming note restored beside it by the real `NoteRestorer`, with both checks.
/// Writing and fsyncing files for every input held the target at about 230 runs a second.
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
    let modified = Date(timeIntervalSince1970: 1_700_000_000)
    if let (content, metadata) = try? store.decode(file, of: name, modified: modified, lenient: false) {
        guard Data(content.utf8) == file, metadata.size == file.count else {
            fatalError("the note decoded is not its bytes")
        }
    }
    guard let (lenient, _) = try? store.decode(file, of: name, modified: modified, lenient: true) else {
        fatalError("a lenient decode refused a note")
    }
    _ = Note.title(of: lenient, fallback: "n")
    _ = NoteStore.restoredHash(from: file)
    let incoming = pieces.count > 1 ? IncomingNote(
        name: NoteName.sanitized(String(decoding: pieces[1], as: UTF8.self)),
        content: String(decoding: pieces.dropFirst(2).flatMap { $0 }, as: UTF8.self), device: "fuzz",
        receivedAt: modified) : nil
    if let incoming {
        _ = ContentHash(of: incoming.content)
        _ = NoteRestorer(store: store).conflictName(for: incoming)
    }
    if Fuzz.hash(bytes) % 64 == 0 { onDisk(store, name, file, incoming) }
    return 0
}

/// The whole path through the file system, as `handoff note` and `handoff continue` take it.
private func onDisk(_ store: NoteStore, _ name: NoteName, _ file: Data, _ incoming: IncomingNote?) {
    let path = store.path(of: name)
    guard FileManager.default.createFile(atPath: path, contents: file) else { fatalError("cannot write \(path)") }
    if let note = try? store.read(name) {
        guard Data(note.content.utf8) == file else { fatalError("the note read is not the bytes on disk") }
        _ = Note.title(of: note.content, fallback: "n")
    }
    _ = try? store.list()
    if let incoming {
        let before = try? FileSystem.read(store.path(of: incoming.name))
        _ = try? NoteRestorer(store: store).restore(incoming)
        // Nothing here was written by a restore, so a local note must come out of it byte for byte.
        if let before, (try? FileSystem.read(store.path(of: incoming.name))) != before {
            fatalError("a restore replaced local text it had not written")
        }
    }
    if let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) {
        for entry in entries { unlink(directory + "/" + entry) }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer, _ argv: UnsafeMutableRawPointer) -> CInt {
    _ = directory
    Fuzz.writeSeedsIfAsked([
        Fuzz.joined([Array("Groceries\nmilk\neggs\n".utf8)]),
        Fuzz.joined([Array("# Title ☕\r\n\r\nbody".utf8), Array("n".utf8), Array("new text".utf8)]),
        Fuzz.joined([Array("local".utf8), Array("../../etc/passwd".utf8), Array("new text".utf8)]),
        Fuzz.joined([[0xFF, 0xFE, 0x00, 0x41], Array(".hidden\u{0}name".utf8), [0xC3]]),
        // A file that starts with a byte-order mark: Foundation's UTF-8 decoding dropped it (found 2026-12-03).
        Fuzz.joined([[0xEF, 0xBB, 0xBF] + Array("# Plan\nsteps\n".utf8)]),
    ])
    return 0
}
