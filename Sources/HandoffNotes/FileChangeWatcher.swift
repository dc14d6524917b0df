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
/// It also watches `IN_MODIFY`, which the kernel queues for each write and for the truncation of an
/// `open(O_TRUNC)`: a save event says the file *was* whole, but an editor may already be rewriting it by the
/// time the consumer reads it. ``isSettled(since:)`` tells the consumer whether what it read may be such a
/// half-written file.
///
/// `@unchecked Sendable`: `generation` and `writing` are touched only on `queue`; the other stored properties
/// are immutable; `AsyncStream` is Sendable, and a Dispatch source (not marked Sendable by the Dispatch
/// overlay) is documented thread-safe for `cancel()`, the only call made on it after `init`.
final class FileChangeWatcher: @unchecked Sendable {
    /// One element per batch of events that ended in a save; each is the ``Generation`` of that save.
    /// Coalescing is left to the consumer.
    let changes: AsyncStream<Generation>
    private let source: any DispatchSourceRead
    private let queue: DispatchQueue
    private let fd: Int32
    private let fileName: String
    /// Counts the events seen for the file; a save and every write after it each move it on.
    private var generation = Generation(0)
    /// True between a write to the file and the save event that closes it.
    private var writing = false

    /// Identifies the point in the file's event history that a save was reported at.
    struct Generation: Equatable, Sendable {
        fileprivate let value: UInt64
        fileprivate init(_ value: UInt64) { self.value = value }
    }

    /// Starts watching `fileName` in `directory`.
    init(directory: String, fileName: String) throws(NoteError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd < 0 { throw FileSystem.failure("cannot start watching \(directory) (inotify_init1)") }
        if inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY)) < 0 {
            let error = FileSystem.failure("cannot watch \(directory)")
            close(fd)
            throw error
        }
        let (stream, continuation) = AsyncStream<Generation>.makeStream(bufferingPolicy: .bufferingNewest(16))
        changes = stream
        self.fd = fd
        self.fileName = fileName
        queue = DispatchQueue(label: "handoff.notes.watcher")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        // The handler holds self strongly; Dispatch releases it, and so the cycle, once the source is cancelled.
        source.setEventHandler {
            if let saved = self.drain() { continuation.yield(saved) }
        }
        source.setCancelHandler {
            close(fd)
            continuation.finish()
        }
        source.resume()
    }

    /// Stops watching; ``changes`` finishes once pending events are delivered.
    func stop() {
        source.cancel()
    }

    /// True when nothing has written to the file since the save `saved` was reported, counting the events
    /// the kernel has queued but not yet delivered. A consumer that read the file after `saved` and gets false
    /// may have read it half-written; the save event that ends that write will be reported in turn.
    func isSettled(since saved: Generation) -> Bool {
        queue.sync {
            _ = drain()
            return generation == saved && !writing
        }
    }

    /// Reads every queued inotify event, on `queue`. Returns the new generation when the last event for the
    /// file was a save (or the queue overflowed, so a save may have been lost), nil otherwise.
    private func drain() -> Generation? {
        var saved = false
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
                var ours = event.mask & UInt32(IN_Q_OVERFLOW) != 0
                if nameLength > 0 {
                    let name = String(cString: (buffer + offset + header).assumingMemoryBound(to: CChar.self))
                    ours = ours || name == fileName
                }
                if ours {
                    generation = Generation(generation.value &+ 1)
                    if event.mask & UInt32(IN_MODIFY) != 0 {
                        writing = true
                        saved = false
                    } else {
                        writing = false
                        saved = true
                    }
                }
                offset += header + nameLength
            }
        }
        return saved ? generation : nil
    }
}
