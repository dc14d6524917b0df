import FoundationEssentials
import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

/// Moves inbox items into a directory of the caller's, each exactly once: never lost, never delivered twice, even
/// when a take is killed at any point, and never to two takes at once.
///
/// For item `ID` going into `DIR`:
///
/// 1. create or open `DIR/.handoff-ID.part` and lock it (`flock`); a live take holding it means "busy";
/// 2. claim the item (the daemon renames it into its `claimed/` folder: of two claims, one wins);
/// 3. copy the bytes into the part file and `fsync` it;
/// 4. `link` the part file to the item's name, or `NAME (2)`, `NAME (3)`... (a link never replaces a file);
/// 5. unlink the part file, `fsync` the directory, and tell the daemon to finish (remove) the item.
///
/// A take killed after step 2 leaves the item claimed by a connection that is gone. The next take is given the
/// claim together with the directory it was going to, and decides by the part file there, which only step 4–5
/// can make disappear: still there with one link, the copy did not finish (copy again); there with two links, or
/// gone, the item is in the directory (finish it). The part file is hidden, owned by the user, and removed on
/// success; deleting it by hand while a take is interrupted makes the next take treat the item as delivered.
public struct InboxTaker: Sendable {
    /// Where a take stopped, for tests that interrupt one.
    public enum Step: Sendable { case claimed, copied, linked, unlinked }

    /// What happened to one item.
    public enum Outcome: Sendable, Equatable {
        /// Written to this file.
        case delivered(URL)
        /// An interrupted earlier take had already put it there; this take only finished it.
        case alreadyDelivered(URL?)
    }

    let service: any SharingService
    let interrupt: @Sendable (Step) throws -> Void

    /// A taker using `service`.
    public init(service: any SharingService) {
        self.init(service: service, interrupt: { _ in })
    }

    /// A taker that calls `interrupt` after each step (throw to stop there, as a kill would).
    public init(service: any SharingService, interrupt: @escaping @Sendable (Step) throws -> Void) {
        self.service = service
        self.interrupt = interrupt
    }

    /// Takes item `id` into `directory` (which must exist).
    public func take(_ id: String, into directory: URL) async throws -> Outcome {
        let directory = URL(fileURLWithPath: directory.standardizedFileURL.path, isDirectory: true)
        let part = Self.partFile(id, in: directory)
        let existedBefore = Self.linkCount(part)
        let lock = try Self.lockedPart(part)
        defer { close(lock) }
        let grant: InboxGrant
        do {
            grant = try await service.claimInboxItem(id, destination: directory.path)
        } catch {
            if existedBefore == nil { unlink(part.path) }
            throw error
        }
        try interrupt(.claimed)
        defer { grant.data.close() }

        // An earlier take of this item was interrupted: find out how far it got.
        if !grant.previousDestination.isEmpty, grant.previousDestination != "/dev/stdout" {
            let previous = URL(fileURLWithPath: grant.previousDestination, isDirectory: true).standardizedFileURL
            let here = previous.path == directory.path
            let links = here ? existedBefore : Self.linkCount(Self.partFile(id, in: previous))
            if links == nil || (links ?? 0) >= 2 {
                // Delivered: the part file is gone, or still linked beside the item's name. Tidy up and finish.
                unlink(Self.partFile(id, in: previous).path)
                unlink(part.path)
                try await service.finishInboxItem(id)
                return .alreadyDelivered(nil)
            }
            if !here { unlink(Self.partFile(id, in: previous).path) }   // an unfinished copy elsewhere
        }
        do {
            try Self.copy(grant.data, to: lock)
        } catch {
            unlink(part.path)
            try? await service.releaseInboxItem(id)
            throw error
        }
        try interrupt(.copied)
        let target = try Self.linkUnderFreeName(part, name: grant.entry.name, in: directory)
        try interrupt(.linked)
        unlink(part.path)
        Self.syncDirectory(directory)
        try interrupt(.unlinked)
        try await service.finishInboxItem(id)
        return .delivered(target)
    }

    /// `DIR/.handoff-ID.part`.
    public static func partFile(_ id: String, in directory: URL) -> URL {
        directory.appendingPathComponent(".handoff-\(id).part")
    }

    private static func linkCount(_ url: URL) -> Int? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return Int(info.st_nlink)
    }

    private static func lockedPart(_ url: URL) throws -> Int32 {
        let fd = open(url.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("create \(url.path)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw ServiceError(.failed, "another 'handoff inbox take' is taking this item into \(url.deletingLastPathComponent().path)")
        }
        return fd
    }

    private static func copy(_ source: OpenFile, to fd: Int32) throws {
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw failure("truncate the part file") }
        do {
            try source.forEachChunk { buffer in
                do throws(FileDescriptorIO.Failure) {
                    try FileDescriptorIO.writeAll(fd, buffer)
                } catch {
                    throw ServiceError(.failed, "cannot write the part file: \(error.message)")
                }
            }
        } catch let error as OpenFile.Failure {
            throw ServiceError(.failed, "cannot read the item: \(error.message)")
        }
        guard fsync(fd) == 0 else { throw failure("flush the part file") }
    }

    /// Links `part` as `name`, `name (2)`, ... (`ShareName.variant`) in `directory`: the first that does not exist.
    /// Never replaces.
    private static func linkUnderFreeName(_ part: URL, name: String, in directory: URL) throws -> URL {
        for number in 1...10_000 {
            let candidate = directory.appendingPathComponent(
                number == 1 ? name : ShareName.variant(of: name, number: number))
            if link(part.path, candidate.path) == 0 { return candidate }
            guard errno == EEXIST else { throw failure("link \(candidate.path)") }
        }
        throw ServiceError(.failed, "no free name for \(name) in \(directory.path)")
    }

    private static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func failure(_ what: String) -> ServiceError {
        ServiceError(.failed, "cannot \(what): \(String(cString: strerror(errno)))")
    }
}
