import Foundation
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// Reports each time one file in a directory is saved, without polling.
///
/// It watches the directory with Linux inotify for `IN_CLOSE_WRITE` (an editor wrote the file in place and
/// closed it) and `IN_MOVED_TO` (an editor wrote a temporary file and renamed it over the note, as vim does),
/// filtered by the file's name. Watching the directory, not the file, keeps working across such renames. The
/// inotify descriptor is read by a thread of its own in `poll(2)`, so the process sleeps until the kernel reports a
/// change (not a Dispatch source: the first Dispatch worker starts libdispatch's 1 Hz workqueue monitor, which would
/// wake `note edit` every second for as long as the editor is open).
///
/// It also watches `IN_MODIFY`, which the kernel queues for each write and for the truncation of an
/// `open(O_TRUNC)`: a save event says the file *was* whole, but an editor may already be rewriting it by the
/// time the consumer reads it. ``isSettled(since:)`` tells the consumer whether what it read may be such a
/// half-written file.
final class FileChangeWatcher: Sendable {
    /// One element per batch of events that ended in a save; each is the ``Generation`` of that save.
    /// Coalescing is left to the consumer.
    let changes: AsyncStream<Generation>
    private let fd: Int32
    private let fileName: String
    /// Written once by ``stop()`` to end the thread's poll; the thread closes both ends.
    private let stopWriter: Int32
    private let state = Locked(EventState())

    /// What the events so far say about the file; drained and read under the lock, from any thread.
    private struct EventState {
        /// Counts the events seen for the file; a save and every write after it each move it on.
        var generation = Generation(0)
        /// True between a write to the file and the save event that closes it.
        var writing = false
        var stopRequested = false
        /// The thread has ended and closed the descriptors.
        var stopped = false
    }

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
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 {
            let error = FileSystem.failure("cannot start watching \(directory) (pipe)")
            close(fd)
            throw error
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (stream, continuation) = AsyncStream<Generation>.makeStream(bufferingPolicy: .bufferingNewest(16))
        changes = stream
        self.fd = fd
        self.fileName = fileName
        stopWriter = ends[1]
        let stopReader = ends[0]
        DetachedThread.start { [self] in
            var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0)]
            while descriptors[1].revents == 0 {
                descriptors[0].revents = 0
                guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { break }
                // Pending events are delivered before a stop ends the stream.
                if let saved = state.withLock({ drain(&$0) }) { continuation.yield(saved) }
            }
            state.withLock { state in
                state.stopped = true  // under the lock: neither `stop()` nor `isSettled` touches a closed descriptor
                close(stopReader)
                close(stopWriter)
                close(fd)
            }
            continuation.finish()
        }
    }

    /// Stops watching; ``changes`` finishes once pending events are delivered. Idempotent.
    func stop() {
        state.withLock { state in
            guard !state.stopped, !state.stopRequested else { return }
            state.stopRequested = true
            var byte: UInt8 = 1
            _ = write(stopWriter, &byte, 1)
        }
    }

    /// True when nothing has written to the file since the save `saved` was reported, counting the events
    /// the kernel has queued but not yet delivered. A consumer that read the file after `saved` and gets false
    /// may have read it half-written; the save event that ends that write will be reported in turn.
    func isSettled(since saved: Generation) -> Bool {
        state.withLock { state in
            if !state.stopped { _ = drain(&state) }
            return state.generation == saved && !state.writing
        }
    }

    /// Reads every queued inotify event into `state` (with the lock held). Returns the new generation when the last
    /// event for the file was a save (or the queue overflowed, so a save may have been lost), nil otherwise.
    private func drain(_ state: inout EventState) -> Generation? {
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
                    state.generation = Generation(state.generation.value &+ 1)
                    if event.mask & UInt32(IN_MODIFY) != 0 {
                        state.writing = true
                        saved = false
                    } else {
                        state.writing = false
                        saved = true
                    }
                }
                offset += header + nameLength
            }
        }
        return saved ? state.generation : nil
    }
}
