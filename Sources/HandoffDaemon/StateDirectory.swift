import HandoffShared
import FoundationEssentials
import HandoffKit

/// The daemon's state directory: `owner.json` (who owns the trust group, written before any device is paired),
/// `trust.json` (the trust store, secret keys, mode 0600) and `state.json` (the last beacon sequence). Every write
/// is atomic: a temporary file in the same directory, flushed, then renamed, and a failed write is thrown.
public struct StateDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// The directory at `url` (not created yet).
    public init(_ url: URL) {
        self.url = url
    }

    var trustFile: URL { url.appendingPathComponent("trust.json") }
    var stateFile: URL { url.appendingPathComponent("state.json") }
    var ownerFile: URL { url.appendingPathComponent("owner.json") }

    /// Creates the directory (mode 0700) if needed.
    public func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonError.failed("cannot create the state directory \(url.path): \(error.fileErrorText)")
        }
    }

    /// The saved trust store, or a new one for `deviceName` (saved at once). A store that exists but cannot be
    /// read is an error: it is never replaced, so no pairing is lost to a bad read.
    public func loadTrust(deviceName: String) throws -> TrustStore {
        if let data = try read(trustFile) {
            var store = try decodeTrust(data)
            if store.identity.name != deviceName {
                store.rename(deviceName)
                try saveTrust(store)
            }
            return store
        }
        let store = try TrustStore.create(deviceName: deviceName)
        try saveTrust(store)
        return store
    }

    /// `trust.json`'s bytes as a trust store, validated, without touching the disk (what ``loadTrust(deviceName:)``
    /// does once it has read them, and what the `state-json` fuzz target feeds directly).
    func decodeTrust(_ data: Data) throws -> TrustStore {
        do {
            return try TrustStore.load(from: data)
        } catch {
            throw DaemonError.failed("\(trustFile.path) cannot be used; move it away to start afresh", cause: error)
        }
    }

    /// Saves the trust store atomically, mode 0600.
    public func saveTrust(_ store: TrustStore) throws {
        try AtomicFile.write(try store.encoded(), to: trustFile)
    }

    /// The saved daemon state, or an empty one.
    public func loadState() throws -> DaemonState {
        guard let data = try read(stateFile) else { return DaemonState() }
        return try decodeState(data)
    }

    /// `state.json`'s bytes as the daemon state, without touching the disk.
    func decodeState(_ data: Data) throws -> DaemonState {
        do {
            return try JSONDecoder().decode(DaemonState.self, from: data)
        } catch {
            throw DaemonError.failed("\(stateFile.path) cannot be read; move it away to start afresh", cause: error)
        }
    }

    /// Saves the daemon state atomically.
    public func saveState(_ state: DaemonState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicFile.write(try encoder.encode(state), to: stateFile)
    }

    /// Who owns the daemon, from `owner.json`; `legacyOwner` is the `ownerUID` of an older `state.json`, used (and
    /// moved to `owner.json`) when there is no `owner.json`. Never throws: an owner record that cannot be read, or
    /// paired devices without one, give ``Ownership/locked(reason:)``, so the daemon runs for root only.
    func loadOwnership(pairedDevices: Int, legacyOwner: UInt32?, now: Date) -> Ownership {
        let fix = "the daemon lets nobody but root in. An administrator names the owner with 'handoffd --owner USER' "
            + "(systemctl edit handoffd), or moves \(url.path) away to start afresh (the devices must then pair again)"
        let data: Data?
        do {
            data = try read(ownerFile)
        } catch {
            return .locked(reason: "the owner record \(ownerFile.path) cannot be read (\(ErrorChain.text(error))): " + fix)
        }
        if let data {
            do {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                return .owned(uid: try decoder.decode(OwnerRecord.self, from: data).uid)
            } catch {
                return .locked(reason: "the owner record \(ownerFile.path) is corrupt (\(ErrorChain.text(error))): " + fix)
            }
        }
        if let legacyOwner {
            try? saveOwner(OwnerRecord(uid: legacyOwner, origin: .migrated, decidedAt: now))
            return .owned(uid: legacyOwner)
        }
        guard pairedDevices == 0 else {
            return .locked(reason: "this device has \(pairedDevices) paired device(s) but no owner record "
                + "(\(ownerFile.path) is missing): " + fix)
        }
        return .unclaimed
    }

    /// Saves the owner record atomically, mode 0600. Throws when it is not on disk (a full disk, a read-only one).
    func saveOwner(_ record: OwnerRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(record), to: ownerFile)
    }

    private func read(_ file: URL) throws -> Data? {
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try AtomicFile.read(file)
    }
}
