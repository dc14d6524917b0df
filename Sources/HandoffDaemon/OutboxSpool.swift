import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

/// One item in the outbox, as kept on disk (`outbox/<id>/entry.json`, beside the item's bytes in `data`).
struct OutboxRecord: Codable, Sendable, Equatable {
    /// Where it stands. `sending` is not stored: after a restart a sending item is pending again, and resumes.
    enum State: String, Codable, Sendable { case pending, delivered, failed, cancelled }

    /// The item's id, also the push's transfer id (so every attempt, across restarts, resumes the same push).
    var id: String
    /// The receiving device.
    var deviceID: UUID
    var deviceName: String
    /// The user who shared it.
    var uid: UInt32
    var metadata: ShareMetadata
    var size: Int
    var createdAt: Date
    /// Retried until then; failed after.
    var deadline: Date
    var state: State
    /// Why it failed, or what a pending item waits for.
    var reason: String
    var finishedAt: Date?
}

/// The outbox spool in the daemon's state directory: one folder per item, made complete in a staging folder (bytes
/// copied and flushed, `entry.json` written) and then renamed into place, so a crash never leaves half an item.
/// It survives the CLI exiting, the peer going out of range and a daemon restart.
struct OutboxSpool: Sendable {
    let directory: URL

    private var staging: URL { directory.appendingPathComponent(".staging") }

    /// Creates the folders (0700) and removes what a crash left half-made.
    func prepare() throws {
        for folder in [directory, staging] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []
        for leftover in leftovers.map({ staging.appendingPathComponent($0) }) {
            try? FileManager.default.removeItem(at: leftover)
        }
    }

    /// Spools `record` with `bytes`.
    func add(_ record: OutboxRecord, bytes: [UInt8]) throws -> OutboxRecord {
        try add(record) { url in try AtomicFile.write(Data(bytes), to: url) ; return bytes.count }
    }

    /// Spools `record` with the bytes of the open regular file `descriptor`, refusing more than `limit` bytes. The
    /// file is read through the descriptor the caller opened, never by a path, so the daemon reads only what the
    /// caller could read.
    func add(_ record: OutboxRecord, descriptor: Int32, limit: Int) throws -> OutboxRecord {
        let size = try Self.regularFileSize(descriptor)
        guard size <= limit else { throw Self.tooLarge(size, limit) }
        return try add(record) { url in
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw DaemonError.failed("cannot create \(url.path)") }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var total = 0
            var offset: off_t = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw DaemonError.failed("cannot read the shared file: \(String(cString: strerror(errno)))") }
                if count == 0 { break }
                total += count
                offset += off_t(count)
                guard total <= limit else { throw Self.tooLarge(total, limit) }
                let written = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, count) }
                guard written == count else { throw DaemonError.failed("cannot write the outbox spool") }
            }
            guard fsync(fd) == 0 else { throw DaemonError.failed("cannot flush the outbox spool") }
            return total
        }
    }

    private func add(_ record: OutboxRecord, write: (URL) throws -> Int) throws -> OutboxRecord {
        let folder = staging.appendingPathComponent(record.id)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        do {
            var record = record
            record.size = try write(folder.appendingPathComponent("data"))
            try commit(record)
            return record
        } catch {
            discard(record.id)
            throw error
        }
    }

    /// Copies a ``ShareStreamFraming`` from `descriptor` into the staging folder of `id`, flushed, calling `check` with the
    /// byte count after every frame (it throws to stop: a limit reached); returns the count and the trailer. The
    /// item is not in the outbox until ``commit(_:)``; on failure the staging folder is gone. It blocks for as long
    /// as the stream lasts: call it off the daemon's actor.
    func stage(_ id: String, stream descriptor: Int32, check: (Int) throws(DaemonError) -> Void)
        throws(DaemonError) -> (size: Int, trailer: ShareStreamFraming.Trailer) {
        let folder = staging.appendingPathComponent(id)
        guard mkdir(folder.path, 0o700) == 0 else {
            throw DaemonError.failed("cannot stage in the outbox spool: \(String(cString: strerror(errno)))")
        }
        let fd = open(folder.appendingPathComponent("data").path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            discard(id)
            throw DaemonError.failed("cannot create the outbox spool: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var total = 0
        var stopped: DaemonError?
        do throws(ShareStreamFraming.Failure) {
            let trailer = try ShareStreamFraming.read(from: descriptor) { (bytes) throws(ShareStreamFraming.Failure) in
                total += bytes.count
                do throws(DaemonError) { try check(total) } catch {
                    stopped = error
                    throw ShareStreamFraming.Failure(error.message)
                }
                do throws(FileDescriptorIO.Failure) { try FileDescriptorIO.writeAll(fd, bytes) } catch {
                    stopped = DaemonError.failed("cannot write the outbox spool: \(error.message)")
                    throw ShareStreamFraming.Failure(error.message)
                }
            }
            guard fsync(fd) == 0 else { throw ShareStreamFraming.Failure("cannot flush the outbox spool") }
            return (total, trailer)
        } catch {
            discard(id)
            throw stopped ?? DaemonError.failed("standard input was not shared: \(error.message)")
        }
    }

    /// Writes `record`'s `entry.json` beside its staged bytes and moves the folder into the outbox.
    func commit(_ record: OutboxRecord) throws {
        let folder = staging.appendingPathComponent(record.id)
        try AtomicFile.write(try encode(record), to: folder.appendingPathComponent("entry.json"))
        guard rename(folder.path, directory.appendingPathComponent(record.id).path) == 0 else {
            throw DaemonError.failed("cannot add to the outbox spool: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes what is staged for `id`.
    func discard(_ id: String) {
        try? FileManager.default.removeItem(at: staging.appendingPathComponent(id))
    }

    /// Every item, oldest first.
    func records() -> [OutboxRecord] {
        let folders = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .map { directory.appendingPathComponent($0) }
        return folders.filter { !$0.lastPathComponent.hasPrefix(".") }.compactMap { folder in
            guard let data = try? Data(contentsOf: folder.appendingPathComponent("entry.json")) else { return nil }
            return try? JSONDecoder().decode(OutboxRecord.self, from: data)
        }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Bytes charged against the outbox quota: a pending item's bytes, and for every item its names and
    /// ``ShareLimits/entryOverhead`` (a final item keeps only its `entry.json`).
    func usedBytes() -> Int {
        records().reduce(0) { $0 + Self.charge(size: $1.state == .pending ? $1.size : 0, $1.metadata, $1.deviceName) }
    }

    /// What an item of `size` bytes with `metadata`, for `deviceName`, counts against the quota.
    static func charge(size: Int, _ metadata: ShareMetadata, _ deviceName: String) -> Int {
        size + metadata.name.utf8.count + metadata.mediaType.utf8.count + deviceName.utf8.count
            + ShareLimits.entryOverhead
    }

    /// The size of the open regular file `descriptor`.
    /// - Throws: InvalidArguments when it is not a regular file.
    static func regularFileSize(_ descriptor: Int32) throws(DaemonError) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw DaemonError.invalidArguments("only a regular file can be shared through a descriptor")
        }
        return Int(info.st_size)
    }

    /// Saves a changed record; a final one loses its bytes (only its line in the list stays).
    func save(_ record: OutboxRecord) throws {
        let folder = directory.appendingPathComponent(record.id)
        try AtomicFile.write(try encode(record), to: folder.appendingPathComponent("entry.json"))
        if record.state != .pending { try? FileManager.default.removeItem(at: dataURL(record.id)) }
    }

    /// The item's bytes.
    func dataURL(_ id: String) -> URL {
        directory.appendingPathComponent(id).appendingPathComponent("data")
    }

    /// Forgets final items older than `lifetime` at `now` (the daemon's clock).
    func prune(olderThan lifetime: TimeInterval, now: Date) {
        for record in records() where record.state != .pending {
            if now.timeIntervalSince(record.finishedAt ?? record.createdAt) > lifetime {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(record.id))
            }
        }
    }

    private func encode(_ record: OutboxRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(record)
    }

    /// The outbox has no room; `atLeast` when the item is a stream cut short there, so it needs more.
    static func full(used: Int, quota: Int, charge: Int, atLeast: Bool = false) -> DaemonError {
        DaemonError(HandoffBusError.outboxFull,
                    "the outbox is full: it holds \(ByteFormat.string(used)) of \(ByteFormat.string(quota)) and the item "
                        + "needs \(atLeast ? "more than " : "")\(ByteFormat.string(charge)); wait for deliveries or "
                        + "cancel items ('handoff outbox')" + (atLeast ? "; nothing was kept" : ""))
    }

    /// A stream that passed `limit` bytes (its whole size is never known: reading stopped there).
    static func streamTooLarge(_ limit: Int) -> DaemonError {
        DaemonError(HandoffBusError.name(forHandoffCode: HandoffError.Code.itemTooLarge.name),
                    "the item is more than \(ByteFormat.string(limit)) (\(limit) bytes), the most the outbox takes "
                        + "(handoffd --max-item); nothing was kept")
    }

    static func tooLarge(_ size: Int, _ limit: Int) -> DaemonError {
        DaemonError(HandoffBusError.name(forHandoffCode: HandoffError.Code.itemTooLarge.name),
                    "the item is \(ByteFormat.string(size)) (\(size) bytes); the outbox takes items of at most "
                        + "\(ByteFormat.string(limit)) (\(limit) bytes)")
    }
}
