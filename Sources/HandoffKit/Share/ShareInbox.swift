import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HandoffShared

/// The receiving side's queue of shared items, on disk, like an App Group container that a share extension appends
/// to and the app drains:
///
///     partial/<transferID>/   a push on its way: state.json, data (whole records only), sums (a 16-byte check of
///                             each record in data: the engine's is the record's AEAD tag), meta.json once complete
///     items/<id>/             an item that arrived: data, meta.json (an `InboxItem`)
///     claimed/<id>/           an item being taken out: the same, plus claim.json
///     trash/                  what was taken or dropped, removed at once (and at the next start)
///     delivered               transfer ids of items that were taken or dropped, so a repeated push is not stored twice
///
/// An item appears by one `rename(2)` of its complete directory (data flushed, `meta.json` written and flushed
/// first), so a partial item never shows and a crash never leaves an item without metadata. Taking an item out
/// starts with a rename from `items/` to `claimed/` that never replaces anything: of two takers, exactly one wins.
/// Every path under the store is built from ids this type generated or validated, never from a sender's name.
package final class ShareInbox: Sendable {
    /// The store's directory (created 0700).
    package let directory: URL
    /// Size limit and quota.
    package let limits: ShareLimits
    /// Where claims, arrivals and partial pushes get their dates.
    private let clock: any HandoffClock

    /// Steps of `commit`, for tests that simulate a crash between them.
    enum CommitStep: Sendable { case metadataWritten, renamed }
    private let crashAfter: (@Sendable (CommitStep) throws -> Void)?
    /// Serialises this process's bookkeeping (quota, ledger); claims rely on rename(2) alone.
    private let lock = Locked(())

    /// Opens (or creates) the store at `directory` and finishes what a crash interrupted: a push whose metadata was
    /// written completes its rename, expired partial pushes and the trash are removed. Dates come from `clock`.
    package convenience init(directory: URL, limits: ShareLimits = ShareLimits(),
                            clock: any HandoffClock = RealClock()) throws(HandoffError) {
        try self.init(directory: directory, limits: limits, clock: clock, crashAfter: nil)
    }

    init(directory: URL, limits: ShareLimits, clock: any HandoffClock = RealClock(),
         crashAfter: (@Sendable (CommitStep) throws -> Void)?) throws(HandoffError) {
        self.directory = directory
        self.limits = limits
        self.clock = clock
        self.crashAfter = crashAfter
        for folder in [directory, itemsFolder, claimedFolder, partialFolder, trashFolder] {
            try ShareFiles.makeDirectory(folder)
        }
        recover()
    }

    var itemsFolder: URL { directory.appendingPathComponent("items") }
    var claimedFolder: URL { directory.appendingPathComponent("claimed") }
    var partialFolder: URL { directory.appendingPathComponent("partial") }
    var trashFolder: URL { directory.appendingPathComponent("trash") }
    private var ledgerFile: URL { directory.appendingPathComponent("delivered") }

    // MARK: - The user's side

    /// The items that arrived and are not being taken, oldest first.
    package func items() -> [InboxItem] {
        list(itemsFolder).sorted { ($0.receivedAt, $0.id) < ($1.receivedAt, $1.id) }
    }

    /// Items whose take started and did not finish (their taker may have been killed), oldest first.
    package func claimedItems() -> [(item: InboxItem, claim: InboxClaim)] {
        list(claimedFolder).compactMap { item in claim(of: item.id).map { (item, $0) } }
            .sorted { ($0.item.receivedAt, $0.item.id) < ($1.item.receivedAt, $1.item.id) }
    }

    /// Bytes charged against the quota: for arrived items and items being taken, their bytes and their metadata;
    /// for every push under way younger than `partialLifetime`, its announced length and metadata length. Each also
    /// counts ``ShareLimits/entryOverhead``, so items of no bytes with long names fill the quota too. Expired
    /// partial pushes are removed first.
    package func usedBytes() -> Int {
        expirePartials()
        return (list(itemsFolder) + list(claimedFolder)).reduce(0) { $0 + charge(of: $1) }
            + partials().reduce(0) { $0 + charge(of: $1) }
    }

    /// What an item counts against the quota: its bytes, its names and media type, and the entry overhead.
    func charge(of item: InboxItem) -> Int {
        item.size + item.name.utf8.count + item.originalName.utf8.count + item.mediaType.utf8.count
            + item.senderName.utf8.count + ShareLimits.entryOverhead
    }

    /// What a push under way counts: its announced payload and metadata lengths, and the entry overhead.
    func charge(of header: PartialState.Header) -> Int {
        Int(header.payloadLength) + Int(header.metadataLength) + ShareLimits.entryOverhead
    }

    /// Pushes that started and did not finish, younger than `partialLifetime`, oldest first; older ones are
    /// removed first.
    package func partialPushes() -> [PartialPush] {
        expirePartials()
        return contents(partialFolder).compactMap { folder -> PartialPush? in
            guard let state = partialState(folder) else { return nil }
            let held = ShareFiles.size(of: folder.appendingPathComponent("data")) ?? 0
            return PartialPush(transferID: state.transferID, senderName: state.senderName, name: state.metadata?.name,
                               receivedBytes: held, announcedBytes: Int(state.header.payloadLength),
                               startedAt: state.startedAt,
                               expiresAt: state.startedAt.addingTimeInterval(limits.partialLifetime))
        }.sorted { ($0.startedAt, $0.transferID) < ($1.startedAt, $1.transferID) }
    }

    /// Deletes the push under way `transferID` (hex, as ``partialPushes()`` lists it), freeing its quota. Its sender
    /// may start it again from the beginning.
    /// - Throws: `InboxError.notFound` when no such push is under way.
    package func dropPartial(_ transferID: String) throws(InboxError) {
        guard let id = TransferID(hex: transferID) else { throw InboxError.notFound(transferID) }
        let folder = partialFolder.appendingPathComponent(id.description)
        guard partialState(folder) != nil else { throw InboxError.notFound(transferID) }
        lock.withLock { _ in ShareFiles.remove(folder) }
    }

    /// Removes every push under way that started more than `partialLifetime` ago on the inbox's clock.
    private func expirePartials() {
        let now = clock.date
        for folder in contents(partialFolder) {
            if let state = partialState(folder), now.timeIntervalSince(state.startedAt) > limits.partialLifetime {
                ShareFiles.remove(folder)
            }
        }
    }

    /// Claims item `id` for `claimant` (the taker), who will copy it to `destination`: moves it from `items/` to
    /// `claimed/`. Of several claims at once, in this process or others, exactly one succeeds.
    /// - Throws: `InboxError.notFound` when no such item waits, `.busy` when another take holds it.
    package func claim(_ id: String, claimant: String, destination: String) throws -> ClaimedItem {
        let source = try entry(itemsFolder, id)
        let target = try entry(claimedFolder, id)
        guard try ShareFiles.moveIfAbsent(source, to: target) else {
            if let claim = claim(of: id) { throw InboxError.busy(id: id, claim: claim) }
            if ShareFiles.size(of: target) != nil {
                // Claimed, but the claim was never recorded: its taker never learned it had the item.
                throw InboxError.busy(id: id, claim: InboxClaim(claimant: "", destination: "", claimedAt: .distantPast))
            }
            throw InboxError.notFound(id)
        }
        ShareFiles.syncDirectory(claimedFolder)
        let claim = InboxClaim(claimant: claimant, destination: destination, claimedAt: clock.date)
        try writeClaim(claim, id: id)
        return try claimed(id, claim: claim)
    }

    /// Hands an item already claimed (by a taker that is gone) to `claimant`, keeping the destination it was
    /// going to, so the new taker can tell whether the old one finished.
    package func reclaim(_ id: String, claimant: String) throws -> ClaimedItem {
        guard var claim = claim(of: id) else {
            // A claim whose record was never written: its taker never learned it had the item.
            return try claimed(id, claim: InboxClaim(claimant: claimant, destination: "", claimedAt: clock.date))
        }
        claim.claimant = claimant
        try writeClaim(claim, id: id)
        return try claimed(id, claim: claim)
    }

    /// The claim on `id`, if it is claimed and the claim was recorded.
    package func claim(of id: String) -> InboxClaim? {
        guard let folder = try? entry(claimedFolder, id),
              let data = try? Data(contentsOf: folder.appendingPathComponent("claim.json")) else { return nil }
        return try? Self.decoder.decode(InboxClaim.self, from: data)
    }

    /// The item is out: removes it for good and remembers its transfer id.
    package func finish(_ id: String) throws {
        try discard(claimedFolder, id)
    }

    /// Puts a claimed item back in the queue (its take failed before anything was written).
    package func release(_ id: String) throws {
        let source = try entry(claimedFolder, id)
        try? FileManager.default.removeItem(at: source.appendingPathComponent("claim.json"))
        guard try ShareFiles.moveIfAbsent(source, to: try entry(itemsFolder, id)) else { throw InboxError.notFound(id) }
        ShareFiles.syncDirectory(itemsFolder)
    }

    /// Deletes a waiting item.
    package func drop(_ id: String) throws {
        try discard(itemsFolder, id)
    }

    /// The bytes of a waiting or claimed item, for `--print`.
    package func dataURL(of id: String) throws -> URL {
        for parent in [itemsFolder, claimedFolder] {
            let url = try entry(parent, id).appendingPathComponent("data")
            if ShareFiles.size(of: url) != nil { return url }
        }
        throw InboxError.notFound(id)
    }

    // MARK: - The receiving engine's side

    /// Where a push starts.
    enum Start: Equatable {
        /// The item is already in the inbox (or was taken): answer DONE, store nothing.
        case delivered
        /// Send from payload record `record` on (1 = the first after the metadata); `metadata` is known when
        /// resuming past the metadata record.
        case resume(record: Int, metadata: ShareMetadata?)
    }

    /// A push from `sender` announces `header`: refuses it when too large or over the quota, otherwise
    /// creates (or finds, for a resumption) its partial entry. Nothing of the payload is stored here. `check`
    /// gives a payload record's 16-byte check value from its index (1 = the first) and plaintext, as `append`
    /// stored it: a resumption keeps the records whose check still matches.
    func begin(_ header: TransferHeader, from sender: TrustedDevice,
               check: (Int, [UInt8]) -> [UInt8] = ShareInbox.digest) throws(HandoffError) -> Start {
        try lock.withLock { _ throws(HandoffError) -> Start in
            let key = header.transferID.description
            if isDelivered(key) { return .delivered }
            expirePartials()   // an expired push starts afresh, and is counted afresh
            let folder = partialFolder.appendingPathComponent(key)
            if let state = partialState(folder), state.senderID == sender.id, state.header == PartialState.Header(header) {
                guard let metadata = state.metadata else { return .resume(record: 0, metadata: nil) }
                // Not the file's length, which a power loss can keep without the bytes (no record is flushed on
                // its own): the records whose bytes still match the digest written beside them.
                let (records, held) = verifiedRecords(in: folder, header: header, check: check)
                for (name, length) in [("data", held), ("sums", records * Self.digestLength)] {
                    let file = folder.appendingPathComponent(name)
                    if let size = ShareFiles.size(of: file), size > length { try truncate(file, to: length) }
                }
                return .resume(record: records + 1, metadata: metadata)
            }
            ShareFiles.remove(folder)   // another sender's or another header's leftovers never mix in
            let size = Int(header.payloadLength)
            guard size <= limits.maximumItemSize else {
                throw HandoffError(.itemTooLarge, "the item is \(ByteFormat.string(size)) (\(size) bytes); this inbox "
                                       + "takes items of at most \(ByteFormat.string(limits.maximumItemSize)) "
                                       + "(\(limits.maximumItemSize) bytes)")
            }
            let used = usedBytes()
            let charge = charge(of: PartialState.Header(header))
            guard used + charge <= limits.quota else {
                throw HandoffError(.inboxFull, "the inbox is full: it holds \(ByteFormat.string(used)) of "
                                       + "\(ByteFormat.string(limits.quota)) and the item is \(ByteFormat.string(size)); "
                                       + "take or drop items there first")
            }
            try ShareFiles.makeDirectory(folder)
            let state = PartialState(transferID: key, senderID: sender.id, senderName: sender.name,
                                     header: PartialState.Header(header), startedAt: clock.date, metadata: nil)
            try savePartial(state, in: folder)
            return .resume(record: 0, metadata: nil)
        }
    }

    /// Records the (authenticated) metadata record of a push.
    func setMetadata(_ metadata: ShareMetadata, transferID: TransferID) throws(HandoffError) {
        let folder = partialFolder.appendingPathComponent(transferID.description)
        guard var state = partialState(folder) else { throw unknownPush() }
        state.metadata = metadata
        try savePartial(state, in: folder)
    }

    /// The length of a record's check value in `sums`.
    static let digestLength = 16

    /// A record's BLAKE2b-128 digest: the check value of `append(_:transferID:)` and `begin`'s default, for a
    /// caller that has no tag of the record.
    static func digest(_ index: Int, _ plaintext: [UInt8]) -> [UInt8] {
        Sodium.genericHash(plaintext, length: digestLength)
    }

    /// Appends one opened payload record to `data`, then its digest to `sums`: a resumption keeps a record only
    /// when both made it to the disk and agree (`verifiedRecords`).
    func append(_ plaintext: [UInt8], transferID: TransferID) throws(HandoffError) {
        try append(records: [plaintext], checks: [Self.digest(0, plaintext)], transferID: transferID)
    }

    /// Appends consecutive opened records to `data` in one write, then their 16-byte check values to `sums` in
    /// another: a frame of the fast lane holds 64 records, and two writes per frame instead of per record is most
    /// of what the receiver spends there. A crash between the two writes leaves records without checks, which a
    /// resumption does not keep, as for one record. The engine's check of a record is its AEAD tag, which it has
    /// already: computing a digest of every byte cost the receiver about a sixth of its CPU on the fast lane.
    func append(records plaintexts: [[UInt8]], checks: [[UInt8]], transferID: TransferID) throws(HandoffError) {
        guard !plaintexts.isEmpty else { return }
        precondition(checks.count == plaintexts.count && checks.allSatisfy { $0.count == Self.digestLength },
                     "one 16-byte check per record")
        let folder = partialFolder.appendingPathComponent(transferID.description)
        var data: [UInt8] = []
        data.reserveCapacity(plaintexts.reduce(0) { $0 + $1.count })
        for plaintext in plaintexts { data.append(contentsOf: plaintext) }
        try ShareFiles.append(data, to: folder.appendingPathComponent("data"), startingWriteback: true)
        var sums: [UInt8] = []
        sums.reserveCapacity(checks.count * Self.digestLength)
        for check in checks { sums += check }
        try ShareFiles.append(sums, to: folder.appendingPathComponent("sums"))
    }

    /// Flushes what a push stored so far.
    func flush(transferID: TransferID) {
        let folder = partialFolder.appendingPathComponent(transferID.description)
        try? ShareFiles.sync(folder.appendingPathComponent("data"))
        try? ShareFiles.sync(folder.appendingPathComponent("sums"))
    }

    /// How many records of a partial, from the first, are whole in `data` and match their check values in `sums`
    /// (`check(index, plaintext)`, index 1 for the first), and their length in bytes: what a resumption may
    /// acknowledge.
    private func verifiedRecords(in folder: URL, header: TransferHeader,
                                 check: (Int, [UInt8]) -> [UInt8]) -> (records: Int, bytes: Int) {
        let data = open(folder.appendingPathComponent("data").path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        let sums = open(folder.appendingPathComponent("sums").path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        defer {
            if data >= 0 { close(data) }
            if sums >= 0 { close(sums) }
        }
        guard data >= 0, sums >= 0 else { return (0, 0) }
        var records = 0, bytes = 0
        while records < header.recordCount {
            let length = min(Int(header.recordSize), Int(header.payloadLength) - bytes)
            var record = [UInt8](repeating: 0, count: length)
            var digest = [UInt8](repeating: 0, count: Self.digestLength)
            let readRecord = record.withUnsafeMutableBytes { pread(data, $0.baseAddress, length, off_t(bytes)) }
            let readDigest = digest.withUnsafeMutableBytes {
                pread(sums, $0.baseAddress, Self.digestLength, off_t(records * Self.digestLength))
            }
            guard readRecord == length, readDigest == Self.digestLength,
                  check(records + 1, record) == digest else { break }
            records += 1
            bytes += length
        }
        return (records, bytes)
    }

    /// Makes a complete push an inbox item: data flushed, `meta.json` written and flushed, then one rename.
    func commit(transferID: TransferID) throws(HandoffError) -> InboxItem {
        try lock.withLock { _ throws(HandoffError) -> InboxItem in
            let key = transferID.description
            let folder = partialFolder.appendingPathComponent(key)
            guard let state = partialState(folder), let metadata = state.metadata else { throw unknownPush() }
            let data = folder.appendingPathComponent("data")
            if state.header.payloadLength == 0, ShareFiles.size(of: data) == nil { try ShareFiles.append([], to: data) }
            guard ShareFiles.size(of: data) == Int(state.header.payloadLength) else {
                throw HandoffError(.corruptPayload, "the stored item has the wrong length")
            }
            try ShareFiles.sync(data)
            let item = InboxItem(id: hex(Sodium.randomBytes(8)), transferID: key, senderID: state.senderID,
                                 senderName: state.senderName, receivedAt: clock.date, size: Int(state.header.payloadLength),
                                 kind: metadata.kind, mediaType: metadata.mediaType,
                                 name: ShareName.sanitise(metadata.name), originalName: metadata.name)
            try ShareFiles.writeAtomically(try encode(item), to: folder.appendingPathComponent("meta.json"))
            try crash(.metadataWritten)
            try publish(folder, as: item.id)
            try crash(.renamed)
            return item
        }
    }

    /// Forgets a push that failed (a corrupt record).
    func discard(transferID: TransferID) {
        ShareFiles.remove(partialFolder.appendingPathComponent(transferID.description))
    }

    // MARK: - Internals

    struct PartialState: Codable {
        struct Header: Codable, Equatable {
            var transferID: String, metadataLength: UInt16, payloadLength: UInt32, recordSize: UInt16
            init(_ h: TransferHeader) {
                transferID = h.transferID.description
                metadataLength = h.metadataLength
                payloadLength = h.payloadLength
                recordSize = h.recordSize
            }
        }
        var transferID: String
        var senderID: UUID
        var senderName: String
        var header: Header
        var startedAt: Date
        var metadata: ShareMetadata?
    }

    private func recover() {
        for entry in contents(trashFolder) { ShareFiles.remove(entry) }
        for folder in contents(partialFolder) {
            if let data = try? Data(contentsOf: folder.appendingPathComponent("meta.json")),
               let item = try? Self.decoder.decode(InboxItem.self, from: data) {
                try? publish(folder, as: item.id)     // the crash came between meta.json and the rename
            } else if let state = partialState(folder),
                      clock.date.timeIntervalSince(state.startedAt) > limits.partialLifetime {
                ShareFiles.remove(folder)
            } else if partialState(folder) == nil {
                ShareFiles.remove(folder)
            }
        }
    }

    private func publish(_ folder: URL, as id: String) throws(HandoffError) {
        guard try ShareFiles.moveIfAbsent(folder, to: itemsFolder.appendingPathComponent(id)) else {
            throw HandoffError(.handoffFailed, "cannot publish inbox item \(id)")
        }
        ShareFiles.syncDirectory(itemsFolder)
        ShareFiles.syncDirectory(partialFolder)
    }

    private func crash(_ step: CommitStep) throws(HandoffError) {
        do { try crashAfter?(step) } catch { throw HandoffError(.handoffFailed, "simulated crash after \(step)") }
    }

    private func discard(_ parent: URL, _ id: String) throws {
        let source = try entry(parent, id)
        guard let item = read(source) else { throw InboxError.notFound(id) }
        let target = trashFolder.appendingPathComponent(id + "-" + hex(Sodium.randomBytes(4)))
        guard try ShareFiles.moveIfAbsent(source, to: target) else { throw InboxError.notFound(id) }
        lock.withLock { _ in remember(item.transferID) }
        ShareFiles.syncDirectory(parent)
        ShareFiles.remove(target)
    }

    private func claimed(_ id: String, claim: InboxClaim) throws -> ClaimedItem {
        let folder = try entry(claimedFolder, id)
        guard let item = read(folder) else { throw InboxError.notFound(id) }
        return ClaimedItem(item: item, data: folder.appendingPathComponent("data"), claim: claim)
    }

    private func writeClaim(_ claim: InboxClaim, id: String) throws {
        try ShareFiles.writeAtomically(try encode(claim), to: try entry(claimedFolder, id).appendingPathComponent("claim.json"))
    }

    private func isDelivered(_ transferID: String) -> Bool {
        if list(itemsFolder).contains(where: { $0.transferID == transferID })
            || list(claimedFolder).contains(where: { $0.transferID == transferID }) { return true }
        guard let ledger = try? String(contentsOf: ledgerFile, encoding: .utf8) else { return false }
        return ledger.split(separator: "\n").contains { $0 == transferID }
    }

    /// Appends to the ledger of delivered transfers, keeping the newest 1024.
    private func remember(_ transferID: String) {
        var lines = ((try? String(contentsOf: ledgerFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        lines.append(transferID)
        if lines.count > 1024 { lines.removeFirst(lines.count - 1024) }
        try? ShareFiles.writeAtomically(Array((lines.joined(separator: "\n") + "\n").utf8), to: ledgerFile)
    }

    private func partials() -> [PartialState.Header] {
        contents(partialFolder).compactMap { partialState($0)?.header }
    }

    private func partialState(_ folder: URL) -> PartialState? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("state.json")) else { return nil }
        return try? Self.decoder.decode(PartialState.self, from: data)
    }

    private func savePartial(_ state: PartialState, in folder: URL) throws(HandoffError) {
        try ShareFiles.writeAtomically(try encode(state), to: folder.appendingPathComponent("state.json"))
    }

    private func truncate(_ url: URL, to length: Int) throws(HandoffError) {
        guard Glibc.truncate(url.path, off_t(length)) == 0 else {
            throw HandoffError(.handoffFailed, "cannot truncate \(url.path)")
        }
    }

    private func list(_ parent: URL) -> [InboxItem] {
        contents(parent).compactMap(read)
    }

    private func read(_ folder: URL) -> InboxItem? {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("meta.json")) else { return nil }
        return try? Self.decoder.decode(InboxItem.self, from: data)
    }

    private func contents(_ folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).map { folder.appendingPathComponent($0) }
    }

    /// `parent/id`, after checking that `id` is one of ours (16 lowercase hex digits), never a path.
    private func entry(_ parent: URL, _ id: String) throws(InboxError) -> URL {
        guard id.utf8.count == 16, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw InboxError.notFound(id)
        }
        return parent.appendingPathComponent(id)
    }

    private static var decoder: JSONDecoder {
        JSONDecoder()
    }

    private func encode(_ value: some Encodable) throws(HandoffError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { return Array(try encoder.encode(value)) } catch {
            throw HandoffError(.handoffFailed, "cannot encode inbox metadata", cause: error)
        }
    }

    private func unknownPush() -> HandoffError {
        HandoffError(.handoffFailed, "unknown push; offer it again")
    }

    private func hex(_ bytes: [UInt8]) -> String { Self.hexString(bytes) }

    static func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

/// Who is taking an item out, and where to.
package struct InboxClaim: Codable, Sendable, Equatable {
    /// The taker (the daemon uses the caller's bus name).
    package var claimant: String
    /// The directory it copies the item into.
    package var destination: String
    /// When it claimed the item.
    package var claimedAt: Date

    /// Creates a claim.
    package init(claimant: String, destination: String, claimedAt: Date) {
        self.claimant = claimant
        self.destination = destination
        self.claimedAt = claimedAt
    }
}

/// An item claimed for taking: its record, where its bytes are, and the claim.
package struct ClaimedItem: Sendable, Equatable {
    /// The item.
    package var item: InboxItem
    /// Its bytes (read them, never move them: `finish` removes them).
    package var data: URL
    /// The claim.
    package var claim: InboxClaim
}

/// Why an inbox operation on an item failed.
package enum InboxError: Error, Equatable, CustomStringConvertible {
    /// No such item waits (it was taken, dropped, or never existed).
    case notFound(String)
    /// Another take holds the item.
    case busy(id: String, claim: InboxClaim)

    /// A sentence for the user.
    package var description: String {
        switch self {
        case .notFound(let id): "no inbox item \(id) (it was taken or dropped, or the id is wrong)"
        case .busy(let id, _): "inbox item \(id) is being taken by another 'handoff inbox take'"
        }
    }
}

/// Byte counts for people: `1.2 MB`, `512 B` (SI units, as desktop file managers show them).
package enum ByteFormat {
    /// `count` bytes in the largest unit that keeps the number at least 1.
    package static func string(_ count: Int) -> String {
        if count < 1000 { return "\(count) B" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(count) / 1000
        var unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() && rounded >= 10 ? "\(Int(rounded)) \(units[unit])"
            : "\(String(cFormat: "%.1f", rounded)) \(units[unit])"
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
