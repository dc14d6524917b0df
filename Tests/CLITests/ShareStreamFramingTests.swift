import Foundation
import HandoffClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The framing `handoff share -` writes and the daemon reads (`ShareStream`): bytes of any length in frames of at
/// most 64 KiB, the trailer last, and a stream without its trailer or out of shape refused.
@Suite struct ShareStreamFramingTests {
    private let file = ShareStreamFraming.Trailer(kind: "file", name: "stdin.bin", mediaType: "application/octet-stream")
    private let text = ShareStreamFraming.Trailer(kind: "text", name: "text.txt", mediaType: "text/plain;charset=utf-8")

    /// A connected socket pair, as the CLI makes one.
    private func socketPair() throws -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw POSIXError(.EIO)
        }
        return (ends[0], ends[1])
    }

    /// What the daemon reads when `input` is framed into a socket pair by a writer on its own thread.
    private func roundTrip(_ input: [UInt8]) throws -> (bytes: [UInt8], trailer: ShareStreamFraming.Trailer,
                                                         frames: [Int]) {
        let (source, sink) = try socketPair()
        let (reading, writing) = try socketPair()
        defer { close(source); close(reading) }
        // The producer and the framer on threads of their own, as a shell pipeline and the CLI's copier are.
        Thread {
            var offset = 0
            while offset < input.count {
                let written = input.withUnsafeBytes { write(sink, $0.baseAddress! + offset, $0.count - offset) }
                guard written > 0 else { break }
                offset += written
            }
            close(sink)
        }.start()
        Thread { [file, text] in
            try? ShareStreamFraming.write(from: source, to: writing, file: file, text: text)
            close(writing)
        }.start()
        var bytes: [UInt8] = [], frames: [Int] = []
        let trailer = try ShareStreamFraming.read(from: reading) { frame in
            bytes.append(contentsOf: frame)
            frames.append(frame.count)
        }
        return (bytes, trailer, frames)
    }

    @Test func bytesOfAnyLengthComeBackWithTheTrailerForWhatTheyAre() throws {
        let binary = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 | 0x80) }
        let read = try roundTrip(binary)
        #expect(read.bytes == binary)
        #expect(read.trailer == file)
        #expect(read.frames.allSatisfy { $0 > 0 && $0 <= ShareStreamFraming.maximumFrame })
        // Empty input is an empty text, as `printf '' | handoff share -` always was.
        let empty = try roundTrip([])
        #expect(empty.bytes.isEmpty && empty.trailer == text)
    }

    @Test func utf8SplitAcrossReadsIsStillTextAndAnyInvalidSequenceIsNot() {
        func isText(_ pieces: [[UInt8]]) -> Bool {
            var check = UTF8Check()
            for piece in pieces { piece.withUnsafeBytes { check.feed($0) } }
            return check.isValid
        }
        let euro = Array("€".utf8), emoji = Array("🙂".utf8)
        #expect(isText([Array("a".utf8) + euro.prefix(1), Array(euro.dropFirst()) + emoji.prefix(2), Array(emoji.dropFirst(2))]))
        for bytes: [UInt8] in [[0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
                               [0x80], Array(euro.prefix(2))] {
            #expect(!isText([bytes]), "\(bytes) passed as UTF-8")
            #expect(String(validating: bytes, as: UTF8.self) == nil, "the test's own case \(bytes) is UTF-8")
        }
    }

    @Test func aStreamWithoutItsTrailerOrOutOfShapeIsRefused() throws {
        // Frames, then the end of the stream where the end mark should be: the writer was killed.
        let (reading, writing) = try socketPair()
        defer { close(reading) }
        let cut: [UInt8] = [0, 0, 0, 3, 1, 2, 3]
        cut.withUnsafeBytes { _ = write(writing, $0.baseAddress, $0.count) }
        close(writing)
        var held = 0
        #expect(throws: ShareStreamFraming.Failure.self) {
            _ = try ShareStreamFraming.read(from: reading) { held += $0.count }
        }
        #expect(held == 3)
        // A frame longer than the largest one.
        let (reading2, writing2) = try socketPair()
        defer { close(reading2) }
        let long: [UInt8] = [0, 1, 0, 1] + [UInt8](repeating: 0, count: 16)
        long.withUnsafeBytes { _ = write(writing2, $0.baseAddress, $0.count) }
        close(writing2)
        #expect(throws: ShareStreamFraming.Failure.self) {
            _ = try ShareStreamFraming.read(from: reading2) { _ in }
        }
    }
}
