import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reports each time one file in a directory is saved, without polling.
///
/// It watches the directory with Linux inotify for `IN_CLOSE_WRITE` (an editor wrote the file in place and
/// closed it) and `IN_MOVED_TO` (an editor wrote a temporary file and renamed it over the note, as vim does),
/// filtered by the file's name. Watching the directory, not the file, keeps working across such renames. The
/// inotify descriptor is read by a Dispatch read source, so the process sleeps until the kernel reports a change.
///
/// `@unchecked Sendable`: the only stored properties are immutable; `AsyncStream` is Sendable, and a Dispatch
/// source (not marked Sendable by the Dispatch overlay) is documented thread-safe for `cancel()`, the only
/// call made on it after `init`.
final class FileChangeWatcher: @unchecked Sendable {
    /// One element per save-like event; coalescing is left to the consumer.
    let changes: AsyncStream<Void>
    private let source: any DispatchSourceRead

    /// Starts watching `fileName` in `directory`.
    init(directory: String, fileName: String) throws(NoteError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw FileSystem.failure("cannot start watching \(directory) (inotify_init1)") }
        if inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) < 0 {
            let error = FileSystem.failure("cannot watch \(directory)")
            close(fd)
            throw error
        }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(16))
        changes = stream
        let queue = DispatchQueue(label: "handoff.notes.watcher")
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            if Self.drain(fd, matching: fileName) { continuation.yield() }
        }
        source.setCancelHandler {
            close(fd)
            continuation.finish()
        }
        self.source = source
        source.resume()
    }

    /// Stops watching; ``changes`` finishes once pending events are delivered.
    func stop() {
        source.cancel()
    }

    /// Reads every queued inotify event; true when one names `fileName`.
    private static func drain(_ fd: Int32, matching fileName: String) -> Bool {
        var matched = false
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer, size)
            if count <= 0 { break }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameLength = Int(event.len)
                // On queue overflow events were lost, one of which may have been a save: report a change.
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { matched = true }
                if nameLength > 0 {
                    let name = String(cString: (buffer + offset + header).assumingMemoryBound(to: CChar.self))
                    if name == fileName { matched = true }
                }
                offset += header + nameLength
            }
        }
        return matched
    }
}
