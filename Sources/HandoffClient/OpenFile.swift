import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An open file descriptor that this object owns: closed by ``close()`` or when the object goes away. What a
/// ``ShareRequest`` and an ``InboxGrant`` carry (the daemon reads an item through its descriptor, never by path).
/// It replaces Foundation's `FileHandle`, which FoundationEssentials lacks: the daemon links this target and
/// imports only FoundationEssentials, so that it maps neither full Foundation nor ICU (Docs/performance.md, Memory).
public final class OpenFile: Sendable {
    /// A system call that failed; `code` is its errno.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// The errno.
        public let code: Int32
        /// The C library's sentence for `code`.
        public var message: String { String(cString: strerror(code)) }
        public var description: String { message }
    }

    private let descriptor: Atomic<Int32>

    /// Takes ownership of `fileDescriptor`.
    public init(fileDescriptor: Int32) {
        descriptor = Atomic(fileDescriptor)
    }

    /// Opens the file at `path` for reading.
    public convenience init(forReadingAtPath path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(code: errno) }
        self.init(fileDescriptor: fd)
    }

    deinit { close() }

    /// The descriptor, or -1 once closed.
    public var fileDescriptor: Int32 { descriptor.load(ordering: .acquiring) }

    /// Closes the descriptor; closing again does nothing.
    public func close() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Calls `body` with each chunk of the file from its start to its end (pread(2), 64 KiB at a time, whatever
    /// the descriptor's position), retrying reads that a signal interrupted.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = fileDescriptor
        guard fd >= 0 else { throw Failure(code: EBADF) }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var offset = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            try chunk.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            offset += count
        }
    }

    /// Every byte of the file, from its start.
    public func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { bytes.append(contentsOf: $0) }
        return bytes
    }
}
