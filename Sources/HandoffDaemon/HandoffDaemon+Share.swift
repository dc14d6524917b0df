import DBus
import FoundationEssentials
import HandoffBusContract
import HandoffClient
import HandoffKit
import HandoffShared

#if canImport(Glibc)
    import Glibc
#endif

/// Sharing: the outbox the daemon drains in the background (like a background upload session) and the inbox it
/// fills (like an App Group container). Both live in the state directory, which only root can read; the owner's
/// CLI hands items over and takes them out through the API, with file descriptors, so the daemon never reads or
/// writes a path in a directory the user controls.
extension HandoffDaemon {
    /// The sharing half of the daemon.
    struct Sharing {
        let inbox: ShareInbox
        let outbox: OutboxSpool
        let progress: ProgressTable
        /// Each push's current link and its rate (HandoffDaemon+Lane.swift).
        let paths = PathTable()
        var tasks: [Task<Void, Never>] = []
        /// One draining task per receiving device.
        var pumps: [UUID: Task<Void, Never>] = [:]
        /// Per device whose last attempt had to wait: how many in a row did, and the task that tries again.
        var retries: [UUID: (waits: Int, task: Task<Void, Never>)] = [:]
        /// The periodic retry, running only while some item is pending (``sweepWhilePending()``).
        var sweep: Task<Void, Never>?
    }

    /// Sealed-stream bytes written per outbox item in flight (updated from the push's progress callback).
    final class ProgressTable: Sendable {
        let entries = Locked<[String: (sent: Int, total: Int)]>([:])
    }

    // MARK: - Lifecycle

    func startSharing() async throws {
        let settings = configuration.share
        let inbox: ShareInbox
        do {
            // The daemon's clock: partial pushes expire on it (`partialLifetime`).
            inbox = try ShareInbox(directory: state.url.appendingPathComponent("inbox"), limits: settings.inbox,
                                   clock: clock)
        } catch {
            throw DaemonError.failed("cannot open the inbox: \(error.message)")
        }
        let outbox = OutboxSpool(directory: state.url.appendingPathComponent("outbox"))
        try outbox.prepare()
        outbox.prune(olderThan: settings.historyLifetime, now: clock.date)
        var sharing = Sharing(inbox: inbox, outbox: outbox, progress: ProgressTable())
        await engine.enableSharing(inbox: settings.acceptsShares ? inbox : nil, advertisePresence: settings.acceptsShares)
        let arrivals = await engine.arrivals()
        let sightings = await engine.sightings()
        sharing.tasks = [
            Task { [weak self] in
                for await item in arrivals { await self?.arrived(item) }
            },
            Task { [weak self] in
                for await device in sightings { await self?.pump(device) }
            },
        ]
        self.sharing = sharing
        let pending = outbox.records().filter { $0.state == .pending }
        if !pending.isEmpty { logger.log("outbox: \(pending.count) item(s) pending from before the restart") }
        sweepWhilePending()
    }

    func stopSharing() {
        guard let sharing else { return }
        for task in sharing.tasks { task.cancel() }
        for task in sharing.pumps.values { task.cancel() }
        for retry in sharing.retries.values { retry.task.cancel() }
        sharing.sweep?.cancel()
        self.sharing = nil
    }

    // MARK: - Sending

    /// Spools an item for `device` (an id or name) and starts delivering it; returns its outbox entry.
    func share(uid: UInt32, device: String, kind: String, name: String, mediaType: String, bytes: [UInt8]?,
               descriptor: UnixFileDescriptor?) async throws -> OutboxEntry {
        guard let sharing else { throw DaemonError.failed("sharing is not running") }
        let target = try await pairedDevice(device)
        let metadata = try Self.shareMetadata(kind: kind, name: name, mediaType: mediaType)
        let limit = configuration.share.maximumItemSize
        // The size and the quota are checked before anything is spooled, so a refusal leaves the outbox as it was.
        let size = try descriptor.map { fd throws(DaemonError) in try OutboxSpool.regularFileSize(fd.rawValue) }
            ?? bytes?.count ?? 0
        guard size <= limit else { throw OutboxSpool.tooLarge(size, limit) }
        try checkOutboxQuota(uid: uid, size: size, metadata, target.name)
        let record = newOutboxRecord(for: target, uid: uid, metadata)
        let spooled: OutboxRecord
        if let descriptor {
            spooled = try sharing.outbox.add(record, descriptor: descriptor.rawValue, limit: limit)
        } else {
            let bytes = bytes ?? []
            guard bytes.count <= limit else { throw OutboxSpool.tooLarge(bytes.count, limit) }
            spooled = try sharing.outbox.add(record, bytes: bytes)
        }
        return spooledItem(spooled, uid: uid, target: target)
    }

    /// Spools a ``ShareStreamFraming`` read from `stream` (`handoff share -`: its length is known only at its end) for
    /// `device`. The frames are copied into a staging folder as they come, on a thread of their own so the daemon
    /// goes on meanwhile; `--max-item` and the outbox quota stop the copy as soon as the bytes pass them, and the
    /// item enters the outbox only once the stream's trailer has come (a CLI killed mid-stream never sends it).
    /// Whatever stops it, nothing of it is kept.
    func shareStream(uid: UInt32, device: String, stream: UnixFileDescriptor) async throws -> OutboxEntry {
        guard let sharing else { throw DaemonError.failed("sharing is not running") }
        let target = try await pairedDevice(device)
        let open = configuration.share.maximumOpenStreams
        guard openShareStreams < open else {
            logger.warning("outbox: user \(uid)'s share of standard input refused: \(open) are being read already")
            throw DaemonError(HandoffBusError.busy, "\(open) shares from standard input are being read already; "
                              + "this one can start once one of them has ended")
        }
        openShareStreams += 1
        defer { openShareStreams -= 1 }
        let limit = configuration.share.maximumItemSize, quota = configuration.share.outboxQuota
        let used = sharing.outbox.usedBytes()
        let unnamed = ShareMetadata(kind: .file, name: "", mediaType: "")
        var record = newOutboxRecord(for: target, uid: uid, unnamed)
        let outbox = sharing.outbox, id = record.id, deviceName = target.name
        let staged = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<(size: Int, trailer: ShareStreamFraming.Trailer), DaemonError>, Never>) in
            DetachedThread.start {
                continuation.resume(returning: Result { () throws(DaemonError) in
                    try outbox.stage(id, stream: stream.rawValue) { (size) throws(DaemonError) in
                        guard size <= limit else { throw OutboxSpool.streamTooLarge(limit) }
                        let charge = OutboxSpool.charge(size: size, unnamed, deviceName)
                        guard used + charge <= quota else {
                            throw OutboxSpool.full(used: used, quota: quota, charge: charge, atLeast: true)
                        }
                    }
                })
            }
        }
        withExtendedLifetime(stream) {}
        let (size, trailer): (Int, ShareStreamFraming.Trailer)
        switch staged {
        case .success(let value): (size, trailer) = value
        case .failure(let error):
            logger.warning("outbox: user \(uid)'s share of standard input refused: \(error.message)")
            throw error
        }
        do {
            // Checked again with the item's names and the outbox as it is now: other shares came in meanwhile.
            record.metadata = try Self.shareMetadata(kind: trailer.kind, name: trailer.name,
                                                     mediaType: trailer.mediaType)
            guard self.sharing != nil else { throw DaemonError.failed("sharing is not running") }
            try checkOutboxQuota(uid: uid, size: size, record.metadata, target.name)
            record.size = size
            try outbox.commit(record)
        } catch {
            outbox.discard(id)
            throw error
        }
        return spooledItem(record, uid: uid, target: target)
    }

    /// The paired device whose id or name is `device`.
    private func pairedDevice(_ device: String) async throws(DaemonError) -> TrustedDevice {
        let trusted = await engine.trust.devices
        guard let target = trusted.first(where: { $0.id.uuidString.lowercased() == device.lowercased() })
            ?? trusted.first(where: { $0.name == device }) else {
            throw DaemonError(HandoffBusError.unknownDevice, "no paired device is called '\(device)'")
        }
        return target
    }

    /// An item's metadata from a caller's strings.
    private static func shareMetadata(kind: String, name: String, mediaType: String) throws(DaemonError)
        -> ShareMetadata {
        guard let kind = ShareKind(rawValue: kind) else {
            throw DaemonError.invalidArguments("kind must be file, text or url, not '\(kind)'")
        }
        guard !name.isEmpty, name.utf8.count <= ShareMetadata.maximumNameLength else {
            throw DaemonError.invalidArguments("the name must have 1 to \(ShareMetadata.maximumNameLength) bytes")
        }
        guard !mediaType.isEmpty, mediaType.utf8.count <= 255, mediaType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw DaemonError.invalidArguments("the media type '\(mediaType)' is not printable ASCII")
        }
        return ShareMetadata(kind: kind, name: name, mediaType: mediaType)
    }

    /// Refuses an item of `size` bytes that the outbox quota has no room for.
    private func checkOutboxQuota(uid: UInt32, size: Int, _ metadata: ShareMetadata, _ deviceName: String)
        throws(DaemonError) {
        let charge = OutboxSpool.charge(size: size, metadata, deviceName)
        let used = sharing?.outbox.usedBytes() ?? 0, quota = configuration.share.outboxQuota
        guard used + charge <= quota else {
            logger.warning("outbox: user \(uid)'s share of \(size) bytes refused: the outbox is full")
            throw OutboxSpool.full(used: used, quota: quota, charge: charge)
        }
    }

    private func newOutboxRecord(for target: TrustedDevice, uid: UInt32, _ metadata: ShareMetadata) -> OutboxRecord {
        let now = clock.date
        return OutboxRecord(id: OutgoingShare.newTransferID(), deviceID: target.id, deviceName: target.name, uid: uid,
                            metadata: metadata, size: 0, createdAt: now,
                            deadline: now.addingTimeInterval(configuration.share.deadline), state: .pending,
                            reason: "", finishedAt: nil)
    }

    /// Logs a new item, starts its delivery and returns its entry.
    private func spooledItem(_ spooled: OutboxRecord, uid: UInt32, target: TrustedDevice) -> OutboxEntry {
        logger.log("outbox: user \(uid) shares \(spooled.metadata.kind.rawValue) '\(spooled.metadata.name)' "
            + "(\(ByteFormat.string(spooled.size))) with '\(target.name)' as \(spooled.id)")
        pump(target.id)
        sweepWhilePending()
        return entry(spooled)
    }

    /// The caller's outbox.
    func outbox(uid: UInt32) throws -> [OutboxEntry] {
        return (sharing?.outbox.records() ?? []).filter { $0.uid == uid }.map(entry)
    }

    /// Cancels a pending item of the caller's.
    func cancelOutboxItem(uid: UInt32, id: String) throws {
        guard let sharing, var record = sharing.outbox.records().first(where: { $0.id == id && $0.uid == uid }) else {
            throw DaemonError(HandoffBusError.noItem, "no outbox item \(id)")
        }
        guard record.state == .pending else {
            throw DaemonError(HandoffBusError.noItem, "outbox item \(id) is already \(record.state.rawValue)")
        }
        record.state = .cancelled
        record.reason = "cancelled by the user"
        record.finishedAt = clock.date
        try sharing.outbox.save(record)
        logger.log("outbox: \(id) cancelled")
        if sharing.progress.entries.withLock({ $0[id] != nil }) {
            sharing.pumps[record.deviceID]?.cancel()   // the push in flight stops; the pump restarts below
        }
    }

    private func entry(_ record: OutboxRecord) -> OutboxEntry {
        let live = sharing?.progress.entries.withLock { $0[record.id] }
        let state = live != nil && record.state == .pending ? "sending" : record.state.rawValue
        let total = live?.total ?? record.size
        let sent = record.state == .delivered ? total : live?.sent ?? 0
        return OutboxEntry(id: record.id, device: record.deviceName, name: record.metadata.name,
                           kind: record.metadata.kind.rawValue, state: state, sentBytes: sent, totalBytes: total,
                           ageSeconds: max(0, clock.date.timeIntervalSince(record.createdAt)), reason: record.reason)
    }

    /// Starts draining the outbox for `device` unless that already runs.
    func pump(_ device: UUID) {
        guard var sharing, sharing.pumps[device] == nil,
              sharing.outbox.records().contains(where: { $0.deviceID == device && $0.state == .pending }) else { return }
        sharing.pumps[device] = Task { [weak self] in
            let waited = await self?.drain(device) ?? nil
            await self?.pumpEnded(device, waitingSince: waited)
        }
        self.sharing = sharing
    }

    /// Retries every pending item each `retryInterval` for as long as one is pending: a device whose beacon never
    /// comes is otherwise not tried again. With nothing pending no such timer runs, so an idle daemon is not woken
    /// every minute (Docs/performance.md, "At rest"); the next share starts it again.
    ///
    /// The rounds fall every `retryInterval` from now, not from whenever the task gets to run after a round; a
    /// round missed altogether (the machine slept) is not made up.
    private func sweepWhilePending() {
        guard var sharing, sharing.sweep == nil,
              sharing.outbox.records().contains(where: { $0.state == .pending }) else { return }
        let interval = configuration.share.retryInterval
        let clock = self.clock
        let first = clock.now + interval
        sharing.sweep = Task { [weak self] in
            var round = first
            while true {
                do { try await clock.sleep(until: round) } catch { return }
                guard let self, await self.sweepOnce() else { return }
                round = round + interval
                if round < clock.now { round = clock.now + interval }
            }
        }
        self.sharing = sharing
    }

    /// One round of the periodic retry: pumps every device with pending items. False, and the sweep is over, when
    /// none is pending.
    private func sweepOnce() -> Bool {
        guard let sharing else { return false }
        let devices = Set(sharing.outbox.records().filter { $0.state == .pending }.map(\.deviceID))
        guard !devices.isEmpty else {
            self.sharing?.sweep = nil
            return false
        }
        for device in devices { pump(device) }
        return true
    }

    /// The pump for `device` is over; `waitingSince` is when its last attempt ended, if that attempt had to wait.
    private func pumpEnded(_ device: UUID, waitingSince: HandoffInstant?) {
        let cancelled = sharing?.pumps[device]?.isCancelled ?? false
        sharing?.pumps[device] = nil
        if cancelled {
            pump(device)   // a cancel stopped the push in flight; go on with the next item
        } else if let waitingSince {
            retrySoon(device, after: waitingSince)
        } else if let retry = sharing?.retries.removeValue(forKey: device) {
            retry.task.cancel()   // drained: the device's backoff starts afresh next time
        }
    }

    /// Tries the device again once the backoff for its waits in a row (`retryBackoff`, doubling, at most
    /// `retryInterval`) has passed since `end`, when its last attempt ended; a sighting or the periodic retry may
    /// start the next attempt sooner.
    private func retrySoon(_ device: UUID, after end: HandoffInstant) {
        guard sharing != nil else { return }
        let waits = (sharing?.retries[device]?.waits ?? 0) + 1
        sharing?.retries[device]?.task.cancel()
        let settings = configuration.share
        let delay = min(settings.retryBackoff * (1 << min(waits - 1, 16)), settings.retryInterval)
        let clock = self.clock
        // From the attempt's end, not from whenever this runs: a periodic round that came between the two found
        // the pump still there and left the device to this retry.
        let deadline = end + delay
        let task = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            await self?.pump(device)
        }
        sharing?.retries[device] = (waits, task)
    }

    /// Delivers the device's pending items one by one, until one cannot be delivered now; when one had to wait,
    /// the instant its attempt ended.
    private func drain(_ device: UUID) async -> HandoffInstant? {
        while !Task.isCancelled, let record = nextPending(for: device) {
            guard await attempt(record) else { return clock.now }
        }
        return nil
    }

    /// The device's oldest pending item; fails those past their deadline or for a device no longer paired.
    private func nextPending(for device: UUID) -> OutboxRecord? {
        guard let sharing else { return nil }
        for var record in sharing.outbox.records() where record.deviceID == device && record.state == .pending {
            if clock.date > record.deadline {
                finish(&record, .failed, "not delivered before the deadline"
                    + (record.reason.isEmpty ? "" : " (last: \(record.reason))"))
                continue
            }
            return record
        }
        return nil
    }

    /// One attempt at `record`; true when it reached a final state (delivered or failed), false when it must wait.
    private func attempt(_ record: OutboxRecord) async -> Bool {
        guard let sharing else { return false }
        var record = record
        let table = sharing.progress
        let paths = sharing.paths
        let clock = self.clock
        let id = record.id
        table.entries.withLock { $0[id] = (0, record.size) }
        defer { table.entries.withLock { $0[id] = nil } }
        let item = OutgoingShare(transferID: record.id, metadata: record.metadata,
                                 content: .file(sharing.outbox.dataURL(record.id)))
        let started = clock.now
        let engine = self.engine
        let device = record.deviceID
        let logger = self.logger
        let receiver = record.deviceName
        // The first progress of an attempt is where the receiver accepted the stream: 0, or what its partial
        // already held (a resume). Said once per attempt, since the outbox shows it only while the attempt runs.
        let accepted = Locked(false)
        let pushing = Task { () -> HandoffError? in
            do throws(HandoffError) {
                try await engine.push(item, to: device, progress: { sent, total in
                    table.entries.withLock { $0[id] = (sent, total) }
                    paths.moved(id, sent: sent, at: clock.now)
                    if !accepted.withLock({ first in defer { first = true }; return first }) {
                        logger.log("outbox: \(id) accepted by '\(receiver)' from byte \(sent) of \(total)")
                    }
                }, path: { link in
                    paths.began(id, transport: link.kind.rawValue, at: clock.now)
                    logger.log("outbox: \(id) to '\(receiver)' over \(link)")
                })
                return nil
            } catch {
                return error
            }
        }
        let end = await withTaskCancellationHandler {
            await Self.watch(pushing, id: id, table: table, stallLimit: configuration.share.attemptStallLimit,
                             clock: clock)
        } onCancel: {
            pushing.cancel()
        }
        if Task.isCancelled { return false }
        let failure: HandoffError?
        switch end {
        case .finished(let error):
            failure = error
        case .stalled(let limit):
            pushing.cancel()
            record.reason = "waiting for \(record.deviceName): no byte moved for \(limit); trying again later"
            try? sharing.outbox.save(record)
            logger.warning("outbox: \(id) waits: the attempt moved no byte for \(limit); abandoned")
            return false
        }
        if let error = failure {
            switch error.code {
            case .connectionUnavailable, .remoteApplicationTimedOut, .radioFailure:
                record.reason = "waiting for \(record.deviceName): \(error.message)"
                try? sharing.outbox.save(record)
                logger.notice("outbox: \(id) waits: \(ErrorChain.text(error))")
                return false
            default:
                finish(&record, .failed, error.description)
                logger.error("outbox: \(id) failed: \(ErrorChain.text(error))")
                return true
            }
        }
        let seconds = started.duration(to: clock.now).timeInterval
        logger.log("outbox: \(id) delivered to '\(record.deviceName)' (\(record.size) bytes in "
            + "\(String(cFormat: "%.2f", seconds)) s)")
        finish(&record, .delivered, "")
        return true
    }

    /// How an attempt ended: the push returned (nil when delivered), or it moved no byte for the limit.
    private enum AttemptEnd: Sendable {
        case finished(HandoffError?)
        case stalled(Duration)
    }

    /// Waits for `pushing`, or until its progress entry in `table` has not moved for `stallLimit` of `clock`'s
    /// time, whichever comes first. It does not wait for a stalled push to notice its cancellation: a call hung on a stopped
    /// peer may never return, and the outbox must go on.
    private static func watch(_ pushing: Task<HandoffError?, Never>, id: String, table: ProgressTable,
                              stallLimit: Duration, clock: any HandoffClock) async -> AttemptEnd {
        let once = Locked<CheckedContinuation<AttemptEnd, Never>?>(nil)
        @Sendable func end(_ value: AttemptEnd) {
            once.withLock { continuation in
                continuation?.resume(returning: value)
                continuation = nil
            }
        }
        return await withCheckedContinuation { continuation in
            once.withLock { $0 = continuation }
            let watchdog = Task {
                let tick = min(.seconds(1), stallLimit / 4)
                var last = table.entries.withLock { $0[id]?.sent }
                var since = clock.now
                while once.withLock({ $0 != nil }) {
                    do { try await clock.sleep(for: tick) } catch { return }
                    let now = table.entries.withLock { $0[id]?.sent }
                    if now != last {
                        last = now
                        since = clock.now
                    } else if since.duration(to: clock.now) >= stallLimit {
                        end(.stalled(stallLimit))
                    }
                }
            }
            // The watchdog ends with the attempt, not a tick later: no timer outlives it.
            Task {
                end(.finished(await pushing.value))
                watchdog.cancel()
            }
        }
    }

    private func finish(_ record: inout OutboxRecord, _ state: OutboxRecord.State, _ reason: String) {
        record.state = state
        record.reason = reason
        record.finishedAt = clock.date
        do { try sharing?.outbox.save(record) } catch { logger.error("outbox: cannot save \(record.id): \(ErrorChain.text(error))") }
    }

    // MARK: - Receiving

    /// An item arrived: log it, tell the owner's watchers and the desktop.
    private func arrived(_ item: InboxItem) async {
        let line = "\(item.senderName) sent \(item.name) (\(ByteFormat.string(item.size)))"
        logger.log("inbox: \(line) as \(item.id)")
        let entry = inboxEntry(item)
        for (name, watcher) in watchers where ownership.admits(watcher.uid) {
            try? connection.emitSignal(HandoffBusAPI.Signal.itemArrived, entry, path: HandoffBusAPI.objectPath,
                                       interface: HandoffBusAPI.interface, destination: name)
        }
        await notifier?.notify(summary: line, body: "Run 'handoff inbox' to see it, 'handoff inbox take' to take it.")
    }

    private func inboxEntry(_ item: InboxItem) -> InboxEntry {
        InboxEntry(id: item.id, sender: item.senderName, name: item.name, kind: item.kind.rawValue,
                   mediaType: item.mediaType, sizeBytes: item.size,
                   ageSeconds: max(0, clock.date.timeIntervalSince(item.receivedAt)), originalName: item.originalName)
    }

    /// Items waiting in the inbox.
    func inbox(uid: UInt32) throws -> [InboxEntry] {
        return (sharing?.inbox.items() ?? []).map(inboxEntry)
    }

    /// Claims an item for `sender`'s take into `destination`, and opens its bytes for it. An item claimed by a
    /// connection that has left the bus (a take that was killed) is handed over with the destination it had.
    func claimInboxItem(uid: UInt32, sender: BusName, id: String, destination: String) async throws
        -> (InboxEntry, UnixFileDescriptor, String) {
        guard let inbox = sharing?.inbox else { throw DaemonError.failed("sharing is not running") }
        guard destination.hasPrefix("/") else {
            throw DaemonError.invalidArguments("the destination must be an absolute path")
        }
        let claimed: ClaimedItem
        var previous = ""
        do {
            claimed = try inbox.claim(id, claimant: sender.rawValue, destination: destination)
        } catch InboxError.busy(_, let claim) {
            if claim.claimant != sender.rawValue, await isConnected(claim.claimant) {
                throw DaemonError(HandoffBusError.busy, InboxError.busy(id: id, claim: claim).description)
            }
            claimed = try inbox.reclaim(id, claimant: sender.rawValue)
            previous = claim.destination
            logger.notice("inbox: \(id) was claimed by a take that is gone; handed to \(sender)")
        } catch let error as InboxError {
            throw DaemonError(HandoffBusError.noItem, error.description)
        }
        let fd = open(claimed.data.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw DaemonError.failed("cannot open inbox item \(id)") }
        return (inboxEntry(claimed.item), UnixFileDescriptor(takingOwnershipOf: fd), previous)
    }

    /// The take of `id` is complete.
    func finishInboxItem(uid: UInt32, id: String) throws {
        try inboxCall { try $0.finish(id) }
        logger.log("inbox: \(id) taken out")
    }

    /// The take of `id` failed; the item goes back.
    func releaseInboxItem(uid: UInt32, id: String) throws {
        try inboxCall { try $0.release(id) }
    }

    /// Pushes under way (partials), oldest first: what they hold, and when they expire.
    func inboxPartials() -> [InboxPartialEntry] {
        let now = clock.date
        return (sharing?.inbox.partialPushes() ?? []).map { push in
            InboxPartialEntry(id: push.transferID, sender: push.senderName, name: push.name ?? "",
                              receivedBytes: push.receivedBytes, announcedBytes: push.announcedBytes,
                              ageSeconds: max(0, now.timeIntervalSince(push.startedAt)),
                              expiresInSeconds: max(0, push.expiresAt.timeIntervalSince(now)))
        }
    }

    /// Deletes the push under way `id`, freeing its share of the quota.
    func dropInboxPartial(id: String) throws {
        guard let inbox = sharing?.inbox else { throw DaemonError.failed("sharing is not running") }
        do { try inbox.dropPartial(id) } catch {
            throw DaemonError(HandoffBusError.noItem, "no partial push \(id) (it finished, expired or was dropped)")
        }
        logger.log("inbox: partial push \(id) dropped")
    }

    /// Deletes `id`.
    func dropInboxItem(uid: UInt32, id: String) throws {
        try inboxCall { try $0.drop(id) }
        logger.log("inbox: \(id) dropped")
    }

    private func inboxCall(_ body: (ShareInbox) throws -> Void) throws {
        guard let inbox = sharing?.inbox else { throw DaemonError.failed("sharing is not running") }
        do { try body(inbox) } catch let error as InboxError {
            throw DaemonError(HandoffBusError.noItem, error.description)
        }
    }

    private func isConnected(_ name: String) async -> Bool {
        guard !name.isEmpty else { return false }
        let reply = try? await connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", arguments: [.string(name)], timeout: .seconds(5))
        if case .boolean(let owned)? = reply?.first { return owned }
        return true   // unsure: never hand an item away from a take that may be alive
    }

    // MARK: - Interface

    func addShareMethods(_ interface: inout ExportedInterface) {
        method(&interface, HandoffBusAPI.Method.share, .owner) { d, _, uid, device, kind, name, mediaType, content in
            try await d.share(uid: uid, device: device, kind: kind, name: name, mediaType: mediaType, bytes: content,
                              descriptor: nil)
        }
        method(&interface, HandoffBusAPI.Method.shareFile, .owner) { d, _, uid, device, name, mediaType, file in
            try await d.share(uid: uid, device: device, kind: "file", name: name, mediaType: mediaType, bytes: nil,
                              descriptor: file)
        }
        method(&interface, HandoffBusAPI.Method.shareStream, .owner) { d, _, uid, device, stream in
            try await d.shareStream(uid: uid, device: device, stream: stream)
        }
        method(&interface, HandoffBusAPI.Method.outbox, .owner) { d, _, uid in
            try await d.outbox(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.outboxPaths, .owner) { d, _, uid in
            await d.outboxPaths(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.cancelOutboxItem, .owner) { d, _, uid, id in
            try await d.cancelOutboxItem(uid: uid, id: id)
        }
        method(&interface, HandoffBusAPI.Method.inbox, .owner) { d, _, uid in
            try await d.inbox(uid: uid)
        }
        method(&interface, HandoffBusAPI.Method.claimInboxItem, .owner) { d, call, uid, id, destination in
            try await d.claimInboxItem(uid: uid, sender: try Self.sender(call), id: id, destination: destination)
        }
        method(&interface, HandoffBusAPI.Method.finishInboxItem, .owner) { d, _, uid, id in
            try await d.finishInboxItem(uid: uid, id: id)
        }
        method(&interface, HandoffBusAPI.Method.releaseInboxItem, .owner) { d, _, uid, id in
            try await d.releaseInboxItem(uid: uid, id: id)
        }
        method(&interface, HandoffBusAPI.Method.dropInboxItem, .owner) { d, _, uid, id in
            try await d.dropInboxItem(uid: uid, id: id)
        }
        method(&interface, HandoffBusAPI.Method.inboxPartials, .owner) { d, _, _ in
            await d.inboxPartials()
        }
        method(&interface, HandoffBusAPI.Method.dropInboxPartial, .owner) { d, _, _, id in
            try await d.dropInboxPartial(id: id)
        }
        interface.signal(HandoffBusAPI.Signal.itemArrived)
    }
}
