import DBus
import DBusTestSupport
import Foundation
@testable import HandoffDaemon
@testable import HandoffKit
import HandoffTesting
import Testing

/// Faults in the state directory at start: a corrupt or truncated `trust.json` or `state.json`, and a disk that is
/// full when the trust store must be written. The daemon refuses to start, says which file and why, and leaves
/// every file byte for byte as it was (issue 14 §2).
@Suite(.serialized) struct StateFaultTests {
    /// A directory holding a valid trust.json (device "laptop", one paired peer) and state.json.
    private func validState(in directory: URL) throws -> (trust: Data, state: Data) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var store = try TrustStore.create(deviceName: "laptop")
        store.adopt(group: store.group, devices: [try TrustStore.create(deviceName: "desktop").identity.asTrustedDevice])
        let state = StateDirectory(directory)
        try state.saveTrust(store)
        try state.saveState(DaemonState(ownerUID: 1000, lastSequence: 77))
        return (try Data(contentsOf: state.trustFile), try Data(contentsOf: state.stateFile))
    }

    /// Launches a daemon on `directory` over an in-memory radio and a private bus; returns its error.
    private func refusal(_ directory: URL, deviceName: String = "laptop") async throws -> String {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let connection = try bus.connect()
        defer { connection.close() }
        let radio = InMemoryEther(seed: 1).makeRadio(address: "sim:laptop")
        let configuration = try DaemonConfiguration(stateDirectory: directory, deviceName: deviceName, adapter: "sim0")
        do {
            let daemon = try await HandoffDaemon.launch(configuration: configuration, radio: radio,
                                                        connection: connection, logger: .silent)
            await daemon.stop()
        } catch {
            return "\(error)"
        }
        Issue.record("the daemon started on a bad state directory")
        return ""
    }

    /// Every file in `directory` with its bytes.
    private func snapshot(_ directory: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return files
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("handoff-state-fault-\(UUID().uuidString)")
    }

    @Test func aCorruptOrTruncatedTrustStoreStopsTheStartAndIsLeftAsItWas() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (trust, _) = try validState(in: directory)
        let trustFile = directory.appendingPathComponent("trust.json")
        let bad: [(String, Data)] = [
            ("truncated", trust.prefix(trust.count / 2)),
            ("empty", Data()),
            ("garbage", Data([0x00, 0xFF, 0x7B, 0x22])),
            ("a short key", Data(String(decoding: trust, as: UTF8.self)
                .replacingOccurrences(of: #""key" : ""#, with: #""key" : "AAAA"#).utf8)),
        ]
        for (what, content) in bad {
            #expect(content != trust, "\(what): the variant is the valid store")
            try content.write(to: trustFile)
            let before = try snapshot(directory)
            // A different device name would make a good store be renamed and saved: a bad one must not be.
            let message = try await refusal(directory, deviceName: "renamed")
            #expect(message.contains(trustFile.path) && message.contains("move it away"), "\(what): \(message)")
            #expect(try snapshot(directory) == before, "\(what): the state directory changed")
        }
    }

    /// `decodeTrust` and `decodeState`, what the start does once it has read the files (and what the `state-json`
    /// fuzz target feeds without the disk), accept what the start loads and refuse the same files with the same
    /// message.
    @Test func theDecodersOfTheFilesBytesGiveWhatTheStartGives() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (trust, state) = try validState(in: directory)
        let files = StateDirectory(directory)
        #expect(try files.decodeTrust(trust) == files.loadTrust(deviceName: "laptop"))
        #expect(try files.decodeState(state) == files.loadState())
        for bad in [trust.prefix(trust.count - 3), Data(), Data("[]".utf8)] {
            #expect(throws: (any Error).self) { try files.decodeTrust(bad) }
            #expect(throws: (any Error).self) { try files.decodeState(bad) }
            try bad.write(to: files.trustFile)
            try bad.write(to: files.stateFile)
            let trustRefusal = failure { try files.decodeTrust(bad) }, stateRefusal = failure { try files.decodeState(bad) }
            #expect(trustRefusal.contains(files.trustFile.path) && stateRefusal.contains(files.stateFile.path))
            #expect(failure { try files.loadTrust(deviceName: "laptop") } == trustRefusal)
            #expect(failure { try files.loadState() } == stateRefusal)
        }
    }

    private func failure(_ body: () throws -> some Any) -> String {
        do {
            _ = try body()
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aCorruptOrTruncatedStateFileStopsTheStartAndNothingIsWritten() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (_, state) = try validState(in: directory)
        let stateFile = directory.appendingPathComponent("state.json")
        for (what, content) in [("truncated", state.prefix(state.count - 3)), ("empty", Data()),
                                ("wrong type", Data(#"{"ownerUID":"root"}"#.utf8))] {
            try content.write(to: stateFile)
            let before = try snapshot(directory)
            let message = try await refusal(directory, deviceName: "renamed")
            #expect(message.contains(stateFile.path) && message.contains("move it away"), "\(what): \(message)")
            #expect(try snapshot(directory) == before, "\(what): the state directory changed")
        }
        // With no trust store yet, a bad state.json stops the start before a new store is made.
        try FileManager.default.removeItem(at: directory.appendingPathComponent("trust.json"))
        _ = try await refusal(directory)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("trust.json").path))
    }

    @Test func aFullDiskKeepsTheOldTrustStoreAndTheDaemonSaysWhy() async throws {
        let disk = try TinyDisk(bytes: 64 << 10)
        defer { disk.unmount() }
        let directory = disk.url.appendingPathComponent("state")
        let (trust, state) = try validState(in: directory)
        try disk.fill()
        // Renaming the device rewrites trust.json at start: the write fails, and the old store stays.
        let message = try await refusal(directory, deviceName: "renamed")
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(message.contains("trust.json"), "\(message)")
        #expect(try snapshot(directory) == ["trust.json": trust, "state.json": state])
        // The same through the store's own save, as a pairing or an unpairing would.
        var store = try TrustStore.load(from: trust)
        store.rename("again")
        #expect(throws: DaemonError.self) { try StateDirectory(directory).saveTrust(store) }
        #expect(try snapshot(directory) == ["trust.json": trust, "state.json": state])
    }
}

/// A tmpfs of a few kilobytes, mounted for one test (the tests run as root, as `make test` does here): a real
/// full disk, with the kernel's own ENOSPC.
struct TinyDisk {
    let url: URL

    init(bytes: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-tiny-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(bytes),mode=0700", "tmpfs", url.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else {
            throw TestFailure("cannot mount a tmpfs at \(url.path) (mount exited \(mount.terminationStatus)); "
                + "these fault tests need root")
        }
    }

    /// Fills the disk to the last byte with a filler file.
    func fill() throws {
        let fd = open(url.appendingPathComponent("filler").path, O_WRONLY | O_CREAT, 0o600)
        guard fd >= 0 else { throw TestFailure("cannot create the filler") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x46, count: 512)
        while write(fd, block, block.count) > 0 {}
        while write(fd, block, 1) > 0 {}
        guard errno == ENOSPC else { throw TestFailure("filling stopped with errno \(errno), not ENOSPC") }
    }

    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [url.path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(at: url)
    }
}
