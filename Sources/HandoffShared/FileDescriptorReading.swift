import Glibc

/// Reading a whole file through its descriptor with read(2), for the places that must not use Foundation's
/// readers (swift-foundation's `Data(contentsOf:)` leaks a 4 KiB buffer for every empty file it reads, which the
/// `state-json` fuzz target found).
package enum FileDescriptorReading {
    /// A read(2) that failed; `code` is its errno.
    package struct Failure: Error {
        package let code: Int32

        /// The C library's sentence for `code`.
        package var message: String { String(cString: strerror(code)) }
    }

    /// Every byte from `fd`'s position to its end, reading 64 KiB at a time and retrying a read that a signal
    /// interrupted. The size from fstat(2), when it has one, only reserves room.
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
}
