import FoundationEssentials
import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a file so that a reader or a crash sees the old content or the new, never a mix; and reads one whole.
enum AtomicFile {
    /// Writes `data` to a fresh temporary file beside `url` (mode `mode`), flushes it, renames it over `url`,
    /// then flushes the directory so the rename itself is durable.
    static func write(_ data: Data, to url: URL, mode: mode_t = 0o600) throws {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-" + UUID().uuidString
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create", temporary) }
        var ok = (try? FileDescriptorIO.writeAll(fd, data)) != nil
        ok = ok && fsync(fd) == 0
        let error = failure("write", temporary)
        close(fd)
        guard ok else {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            let error = failure("rename", url.path)
            unlink(temporary)
            throw error
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// The whole content of the file at `url`, read with read(2). (Not `Data(contentsOf:)`: swift-foundation
    /// leaks a 4 KiB buffer each time it reads an empty file, which the `state-json` fuzz target found.)
    static func read(_ url: URL) throws -> Data {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("read", url.path) }
        defer { close(fd) }
        do {
            return Data(try FileDescriptorIO.readToEnd(fd))
        } catch {
            throw DaemonError.failed("cannot read \(url.path): \(error.message)")
        }
    }

    private static func failure(_ what: String, _ path: String) -> DaemonError {
        DaemonError.failed("cannot \(what) \(path): \(String(cString: strerror(errno)))")
    }
}
