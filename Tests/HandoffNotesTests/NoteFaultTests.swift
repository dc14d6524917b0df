import Foundation
@testable import HandoffNotes
import Testing

/// A restore onto a full disk: a real one (a tmpfs of a few kilobytes; the tests run as root, as `make test` does
/// here). The user gets an I/O error that says the disk is full, and the local note is untouched (issue 14 §2).
@Suite(.serialized) struct NoteFaultTests {
    private let arrival = Date(timeIntervalSince1970: 1_795_986_270)

    private func notes(_ store: NoteStore) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: store.directory) where name != "filler" {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: store.directory + "/" + name))
        }
        return files
    }

    @Test func aRestoreThatWouldUpdateTheNoteFailsClearlyAndLeavesItAsItWas() throws {
        let disk = try TinyNoteDisk(bytes: 32 << 10)
        defer { disk.unmount() }
        let store = NoteStore(directory: disk.path)
        let restorer = NoteRestorer(store: store, timeZone: TimeZone(identifier: "UTC") ?? .current)
        let name = try NoteName("groceries")
        // The note came from a restore and was not changed since: the next restore would replace it.
        _ = try restorer.restore(IncomingNote(name: name, content: "milk\n", device: "laptop", receivedAt: arrival))
        let before = try notes(store)
        try disk.fill()
        let big = String(repeating: "eggs and flour\n", count: 200)
        let error = #expect(throws: NoteError.self) {
            try restorer.restore(IncomingNote(name: name, content: big, device: "laptop", receivedAt: arrival))
        }
        #expect(error?.code == .io)
        #expect(error?.errno == ENOSPC)
        #expect(error?.message.contains("No space left on device") == true, "\(String(describing: error))")
        #expect(try notes(store) == before, "the note or its restore record changed, or a temporary file was left")
        #expect(try store.read(name).content == "milk\n")
    }

    @Test func aRestoreThatWouldKeepBothFailsClearlyAndLeavesTheLocalNote() throws {
        let disk = try TinyNoteDisk(bytes: 32 << 10)
        defer { disk.unmount() }
        let store = NoteStore(directory: disk.path)
        let restorer = NoteRestorer(store: store, timeZone: TimeZone(identifier: "UTC") ?? .current)
        let name = try NoteName("todo")
        try store.write("call Sam\nlocal change\n", to: name)
        let before = try notes(store)
        try disk.fill()
        let error = #expect(throws: NoteError.self) {
            try restorer.restore(IncomingNote(name: name, content: String(repeating: "x", count: 4000),
                                              device: "laptop", receivedAt: arrival))
        }
        #expect(error?.errno == ENOSPC, "\(String(describing: error))")
        #expect(try notes(store) == before)
    }

    @Test func savingOverANoteOnAFullDiskKeepsTheOldText() throws {
        let disk = try TinyNoteDisk(bytes: 32 << 10)
        defer { disk.unmount() }
        let store = NoteStore(directory: disk.path)
        let name = try NoteName("todo")
        try store.write("old text\n", to: name)
        try disk.fill()
        #expect(throws: NoteError.self) { try store.write(String(repeating: "new ", count: 2000), to: name) }
        #expect(try store.read(name).content == "old text\n")
        #expect(try notes(store).keys.sorted() == ["todo.md"])
    }
}

/// A tmpfs of a few kilobytes, mounted for one test.
struct TinyNoteDisk {
    struct Failure: Error, CustomStringConvertible { let description: String }

    let path: String

    init(bytes: Int) throws {
        path = NSTemporaryDirectory() + "/handoff-tiny-disk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            throw Failure(description: "cannot mount a tmpfs at \(path) (mount exited \(mount.terminationStatus)); "
                + "these fault tests need root")
        }
    }

    /// Fills the disk to the last byte.
    func fill() throws {
        let fd = open(path + "/filler", O_WRONLY | O_CREAT, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create the filler") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x46, count: 512)
        while write(fd, block, block.count) > 0 {}
        while write(fd, block, 1) > 0 {}
        guard errno == ENOSPC else { throw Failure(description: "filling stopped with errno \(errno), not ENOSPC") }
    }

    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }
}
