import Foundation
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// The few POSIX file operations the store needs, with errno turned into ``NoteError``.
enum FileSystem {
    /// Writes `data` to a new hidden temporary file in `directory`, flushed to disk, and returns its path.
    static func writeTemporary(_ data: Data, in directory: String, for fileName: String) throws(NoteError) -> String {
        let unique = String(getpid()) + "-" + String(UInt32.random(in: 0...UInt32.max))
        let path = directory + "/." + fileName + ".tmp-" + unique
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 { throw failure("cannot create \(path)") }
        defer { close(fd) }
        var failed: Int32?
        do throws(FileDescriptorIO.Failure) {
            try FileDescriptorIO.writeAll(fd, data)
        } catch {
            failed = error.code
        }
        if failed == nil, fsync(fd) != 0 { failed = errno }
        if let failed {
            unlink(path)
            throw NoteError(.io, "cannot write \(path): \(String(cString: strerror(failed)))", errno: failed)
        }
        return path
    }

    /// Atomically replaces `destination` with `temporary` (rename(2)); readers see the old or the new file.
    static func replace(_ destination: String, with temporary: String) throws(NoteError) {
        if rename(temporary, destination) != 0 {
            let error = failure("cannot replace \(destination)")
            unlink(temporary)
            throw error
        }
    }

    /// Atomically moves `temporary` to `destination` only if nothing exists there (link(2) then unlink).
    /// Returns false, leaving everything untouched, when `destination` exists.
    static func createExclusively(_ destination: String, from temporary: String) throws(NoteError) -> Bool {
        defer { unlink(temporary) }
        if link(temporary, destination) == 0 { return true }
        if errno == EEXIST { return false }
        throw failure("cannot create \(destination)")
    }

    /// The whole content of the file at `path`, read with read(2). (Not `Data(contentsOf:)`: swift-foundation
    /// leaks a 4 KiB buffer each time it reads an empty file, which the `note-file` fuzz target found.)
    static func read(_ path: String) throws(NoteError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw failure("cannot read \(path)") }
        defer { close(fd) }
        return try readAll(fd, path)
    }

    /// The whole content of the file at `path`, or nil when `unlessBeingWritten` and a process has the file open
    /// for writing, so what could be read may be half-written (an editor that truncates the note and then writes
    /// it).
    ///
    /// The check is a read lease (`F_SETLEASE`, `F_RDLCK`): the kernel grants it only while no one has the file
    /// open for writing, and while it is held a writer's `open` waits for it, so the bytes read are one whole
    /// save. It is held for the read alone. Where leases are not available (a file system without them, a file
    /// this user does not own), the file is read without one. The lease-break signal is set to SIGURG, whose
    /// default action is to ignore it: the default SIGIO would kill the process.
    static func read(_ path: String, unlessBeingWritten: Bool) throws(NoteError) -> Data? {
        guard unlessBeingWritten else { return try read(path) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw failure("cannot read \(path)") }
        defer { close(fd) }
        _ = fcntl(fd, Lease.setSignal, SIGURG)
        guard fcntl(fd, Lease.set, Int32(F_RDLCK)) == 0 else {
            if errno == EAGAIN { return nil }
            return try readAll(fd, path)
        }
        defer { _ = fcntl(fd, Lease.set, Int32(F_UNLCK)) }
        return try readAll(fd, path)
    }

    /// Linux `fcntl` commands that Glibc's Swift module does not export (`<linux/fcntl.h>`, `<asm/fcntl.h>`).
    private enum Lease {
        /// `F_SETLEASE`, `F_LINUX_SPECIFIC_BASE + 0`.
        static let set: Int32 = 1024
        /// `F_SETSIG`.
        static let setSignal: Int32 = 10
    }

    /// Reads `fd` to its end.
    private static func readAll(_ fd: Int32, _ path: String) throws(NoteError) -> Data {
        do {
            return Data(try FileDescriptorIO.readToEnd(fd))
        } catch {
            throw NoteError(.io, "cannot read \(path): \(error.message)", errno: error.code)
        }
    }

    /// Creates a directory and its parents, private to the user (0700) when created.
    static func makeDirectory(_ path: String) throws(NoteError) {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw NoteError(.io, "cannot create directory \(path): \(error.localizedDescription)")
        }
    }

    /// The current errno as a ``NoteError``.
    static func failure(_ what: String) -> NoteError {
        let code = errno
        return NoteError(.io, "\(what): \(String(cString: strerror(code)))", errno: code)
    }
}
