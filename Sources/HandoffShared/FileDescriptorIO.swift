import CLinuxEvents
import Glibc

/// Whole reads and writes through a file descriptor with read(2) and write(2), each retried when a signal
/// interrupts it: the one loop of each, for the places that must not use Foundation's readers (swift-foundation's
/// `Data(contentsOf:)` leaks a 4 KiB buffer for every empty file it reads, which the `state-json` fuzz target found)
/// or that write to a descriptor they hold (a part file, a pipe to a tool).
package enum FileDescriptorIO {
    /// A read(2) or write(2) that failed; `code` is its errno.
    package struct Failure: Error {
        package let code: Int32

        /// The C library's sentence for `code`.
        package var message: String { String(cString: strerror(code)) }
    }

    /// Starts writing `fd`'s dirty pages to disk and returns without waiting for them (sync_file_range(2) with
    /// SYNC_FILE_RANGE_WRITE over the whole file). No durability by itself: a later fsync(2) still makes the file
    /// durable, but finds little left to write. Best effort: a file system without it changes nothing.
    package static func startWriteback(_ fd: Int32) {
        _ = sync_file_range(fd, 0, 0, UInt32(CLINUX_SYNC_FILE_RANGE_WRITE))
    }

    /// Every byte from `fd`'s position to its end, reading 64 KiB at a time. The size from fstat(2), when it has
    /// one, only reserves room.
    package static func readToEnd(_ fd: Int32) throws(Failure) -> [UInt8] {
        var bytes: [UInt8] = []
        var status = stat()
        if fstat(fd, &status) == 0, status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size)) }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes all of `bytes` to `fd`, a short write going on where it stopped.
    /// - Throws: the first write(2) that fails for another reason than a signal (`EPIPE` when a pipe's reader left).
    package static func writeAll(_ fd: Int32, _ bytes: some Collection<UInt8>) throws(Failure) {
        let contiguous: Failure?? = bytes.withContiguousStorageIfAvailable { buffer in
            failure(writing: UnsafeRawBufferPointer(buffer), to: fd)
        }
        if let stopped = contiguous ?? Array(bytes).withUnsafeBytes({ failure(writing: $0, to: fd) }) { throw stopped }
    }

    /// The failure that stopped writing `buffer`, or nil once every byte of it is written.
    private static func failure(writing buffer: UnsafeRawBufferPointer, to fd: Int32) -> Failure? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return Failure(code: errno)
            }
            offset += written
        }
        return nil
    }
}
