import Foundation
import HandoffShared
import Testing

/// The one write loop and the one read loop: every byte written, whatever kind of collection holds them, and read
/// back whole; a failing descriptor says its errno.
@Suite struct FileDescriptorIOTests {
    /// A new empty file, open for reading and writing, already unlinked.
    private func scratchFile() throws -> Int32 {
        var template = Array((FileManager.default.temporaryDirectory.path + "/fdio-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(fd >= 0)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    private func writtenThenRead(_ bytes: some Collection<UInt8>) throws -> [UInt8] {
        let fd = try scratchFile()
        defer { close(fd) }
        try FileDescriptorIO.writeAll(fd, bytes)
        #expect(lseek(fd, 0, SEEK_SET) == 0)
        return try FileDescriptorIO.readToEnd(fd)
    }

    static let pattern = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test func anArrayDataAndANonContiguousCollectionAreWrittenWhole() throws {
        #expect(try writtenThenRead(Self.pattern) == Self.pattern)
        #expect(try writtenThenRead(Data(Self.pattern)) == Self.pattern)
        #expect(try writtenThenRead(Self.pattern.lazy.map { $0 }) == Self.pattern)
        #expect(try writtenThenRead([UInt8]()) == [])
    }

    @Test func aBadDescriptorFailsWithItsErrno() {
        let failure = #expect(throws: FileDescriptorIO.Failure.self) { try FileDescriptorIO.writeAll(-1, [1, 2, 3]) }
        #expect(failure?.code == EBADF)
    }
}
