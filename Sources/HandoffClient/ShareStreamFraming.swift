import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

/// How `handoff share -` hands standard input to the daemon without holding it: the CLI reads its input 64 KiB at
/// a time and writes it, framed, into one end of a socket pair whose other end the daemon got with `ShareStream`;
/// the daemon copies the frames into its outbox spool as they come (Docs/dbus-api.md, "Sharing").
///
///     frame*  ‖  0x00000000  ‖  trailer
///     frame   = length(4, big-endian, 1…65536) ‖ bytes
///     trailer = kind length(1) ‖ kind ‖ name length(2, big-endian) ‖ UTF-8 name ‖ media type length(1) ‖ media type
///
/// The end mark and the trailer come last because only the end decides them: the item is text when every byte was
/// UTF-8. They are also what makes the item whole. A CLI killed mid-stream (or whose input failed) closes the
/// socket without them, and the daemon keeps nothing; so does a daemon that stops reading (a quota, a restart),
/// whose error the CLI's call returns.
package enum ShareStreamFraming {
    /// The largest frame.
    package static let maximumFrame = 64 << 10

    /// Why a stream could not be read or written; `code` is an errno when a system call failed, else 0.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let message: String
        package let code: Int32

        package init(_ message: String, code: Int32 = 0) {
            self.message = message
            self.code = code
        }

        package var description: String { message }
    }

    /// The kind, name and media type the trailer carries.
    package struct Trailer: Sendable, Equatable {
        package var kind: String
        package var name: String
        package var mediaType: String

        package init(kind: String, name: String, mediaType: String) {
            self.kind = kind
            self.name = name
            self.mediaType = mediaType
        }

        /// The end mark and the trailer, as written after the last frame.
        package var encoded: [UInt8] {
            let kind = Array(self.kind.utf8.prefix(255)), name = Array(self.name.utf8.prefix(Int(UInt16.max)))
            let type = Array(mediaType.utf8.prefix(255))
            return [0, 0, 0, 0, UInt8(kind.count)] + kind + [UInt8(name.count >> 8), UInt8(name.count & 0xFF)] + name
                + [UInt8(type.count)] + type
        }
    }

    // MARK: - Writing (the CLI)

    /// Copies `source` from its position to its end into `destination` as frames, then writes the trailer, the
    /// one from `text` when every byte was UTF-8 and `text` is given, else `file`. Memory stays at one frame.
    /// - Throws: when `source` cannot be read (no trailer is written then) or `destination` cannot be written
    ///   (`EPIPE` when the daemon stopped reading: its reply says why).
    package static func write(from source: Int32, to destination: Int32, file: Trailer, text: Trailer?)
        throws(Failure) {
        var chunk = [UInt8](repeating: 0, count: 4 + maximumFrame)
        var utf8 = UTF8Check()
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                Glibc.read(source, UnsafeMutableRawBufferPointer(rebasing: buffer[4...]).baseAddress, maximumFrame)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure("cannot read standard input: \(String(cString: strerror(errno)))", code: errno)
            }
            if count == 0 { break }
            if text != nil { chunk.withUnsafeBytes { utf8.feed(UnsafeRawBufferPointer(rebasing: $0[4..<(4 + count)])) } }
            chunk[0] = UInt8(count >> 24); chunk[1] = UInt8((count >> 16) & 0xFF)
            chunk[2] = UInt8((count >> 8) & 0xFF); chunk[3] = UInt8(count & 0xFF)
            try send(chunk[0..<(4 + count)], to: destination)
        }
        try send((utf8.isValid ? text ?? file : file).encoded[...], to: destination)
    }

    /// Writes all of `bytes` with send(2) and MSG_NOSIGNAL, so a daemon that closed its end raises EPIPE, not
    /// SIGPIPE.
    private static func send(_ bytes: ArraySlice<UInt8>, to fd: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]).baseAddress, buffer.count - offset,
                           Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw Failure("the daemon stopped reading the stream: \(String(cString: strerror(errno)))", code: errno)
            }
            offset += sent
        }
    }

    // MARK: - Reading (the daemon)

    /// Reads a stream from `source` until its trailer, handing each frame's bytes to `body`, and returns the
    /// trailer.
    /// - Throws: when the stream ends before its trailer (the writer was killed or its input failed), breaks the
    ///   format or cannot be read, or what `body` throws (a limit reached).
    package static func read(from source: Int32, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Void)
        throws(Failure) -> Trailer {
        var frame = [UInt8](repeating: 0, count: maximumFrame)
        while true {
            let header = try exactly(4, from: source)
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            if length == 0 { break }
            guard length <= maximumFrame else { throw Failure("the stream has a frame of \(length) bytes") }
            try fill(&frame, length, from: source)
            let stopped = frame.withUnsafeBytes { buffer -> Failure? in
                do throws(Failure) { try body(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) } catch {
                    return error
                }
                return nil
            }
            if let stopped { throw stopped }
        }
        let kind = try exactly(Int(try exactly(1, from: source)[0]), from: source)
        let nameLength = try exactly(2, from: source)
        let name = try exactly(Int(nameLength[0]) << 8 | Int(nameLength[1]), from: source)
        let type = try exactly(Int(try exactly(1, from: source)[0]), from: source)
        return Trailer(kind: String(decoding: kind, as: UTF8.self), name: String(decoding: name, as: UTF8.self),
                       mediaType: String(decoding: type, as: UTF8.self))
    }

    private static func exactly(_ count: Int, from fd: Int32) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        try fill(&bytes, count, from: fd)
        return bytes
    }

    /// Fills the first `count` bytes of `buffer` from `fd`.
    private static func fill(_ buffer: inout [UInt8], _ count: Int, from fd: Int32) throws(Failure) {
        var offset = 0
        while offset < count {
            let got = buffer.withUnsafeMutableBytes { whole in
                Glibc.read(fd, UnsafeMutableRawBufferPointer(rebasing: whole[offset...]).baseAddress, count - offset)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure("cannot read the stream: \(String(cString: strerror(errno)))", code: errno)
            }
            if got == 0 { throw Failure("the stream ended before its end mark (the sender stopped)") }
            offset += got
        }
    }
}

/// Whether bytes fed in pieces are UTF-8 (the rules of `String(validating:as: UTF8.self)`: no overlong forms, no
/// surrogates, nothing past U+10FFFF), a sequence split between two pieces included.
package struct UTF8Check: Sendable {
    private var valid = true
    /// Continuation bytes still expected, and the range the next one must fall in.
    private var needed = 0
    private var low: UInt8 = 0x80, high: UInt8 = 0xBF

    package init() {}

    /// Whether every byte so far was UTF-8 and no sequence is left open.
    package var isValid: Bool { valid && needed == 0 }

    package mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard valid else { return }
        for byte in bytes {
            if needed > 0 {
                guard byte >= low, byte <= high else { valid = false; return }
                needed -= 1
                low = 0x80; high = 0xBF
                continue
            }
            switch byte {
            case 0x00...0x7F: continue
            case 0xC2...0xDF: needed = 1
            case 0xE0: needed = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: needed = 2
            case 0xED: needed = 2; high = 0x9F
            case 0xF0: needed = 3; low = 0x90
            case 0xF1...0xF3: needed = 3
            case 0xF4: needed = 3; high = 0x8F
            default: valid = false; return
            }
        }
    }
}
