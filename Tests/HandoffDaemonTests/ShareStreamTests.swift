import Foundation
import HandoffClient
import HandoffDBusClient
import HandoffDaemon
import HandoffKit
import HandoffLane
import HandoffTesting
import Testing

/// `handoff share -` streams standard input into the daemon's outbox (ShareStream): of a length nobody knows up
/// front, held whole by neither the CLI nor the daemon, refused with a clear error past --max-item or the outbox
/// quota, and never kept half when the CLI dies mid-stream.
@Suite(.serialized) struct ShareStreamTests {
    init() {
        signal(SIGPIPE, SIG_IGN)   // a CLI that stops reading must not kill the test runner that feeds it
    }

    private func sharing(_ machine: Machine) async throws -> DBusHandoffService {
        try #require(try await machine.client() as? DBusHandoffService)
    }

    /// What the laptop's outbox holds on disk: its items' folders and the staging folder's contents.
    private func spool(_ machine: Machine) throws -> (items: [String], staging: [String]) {
        let outbox = machine.stateDirectory.appendingPathComponent("outbox")
        let items = try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { !$0.hasPrefix(".") }
        let staging = try FileManager.default.contentsOfDirectory(atPath: outbox.appendingPathComponent(".staging").path)
        return (items, staging)
    }

    /// Bytes that are not UTF-8 and differ every 4 KiB.
    private func blob(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0xFF, count: count)
        for index in stride(from: 0, to: count, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index >> 12) }
        return Data(bytes)
    }

    @Test func thirtyTwoMebibytesThroughAPipeArriveByteForByte() async throws {
        let fastLane: @Sendable (inout DaemonConfiguration) -> Void = { configuration in
            configuration.share.retryInterval = .milliseconds(200)
            var lane = FastLane(network: TCPLane(policy: .loopbackForTests), policy: .loopbackForTests)
            lane.retryInterval = .milliseconds(200)
            configuration.handoff.fastLane = lane
        }
        let machines = try await TwoMachines.make(laptop: fastLane, desktop: fastLane)
        defer { Task { await machines.shutDown() } }
        let handoff = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { handoff.remove() }
        let input = blob(32 << 20)
        let shared = try await handoff.run(["share", "--to", "desktop", "--json", "-"], inputData: input)
        #expect(shared.status == 0, "\(shared.error)")
        let laptop = try await sharing(machines.laptop)
        let queued = try await laptop.outbox()
        #expect(queued.map(\.name) == ["stdin.bin"] && queued.map(\.kind) == ["file"], "\(queued)")
        let id = try #require(queued.first?.id)
        let outcome = try await eventually(within: 60) {
            let entries = try await laptop.outbox().filter { $0.id == id }
            return entries.allSatisfy(\.isFinal) ? entries : nil
        }
        #expect(outcome.map(\.state) == ["delivered"], "\(outcome)")
        let desktop = try await sharing(machines.desktop)
        let inbox = try await desktop.inbox()
        #expect(inbox.map(\.sizeBytes) == [input.count])
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("share-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: target) }
        guard case .delivered(let url) = try await InboxTaker(service: desktop).take(inbox[0].id, into: target) else {
            Issue.record("the item could not be taken")
            return
        }
        #expect(try Data(contentsOf: url) == input, "standard input did not arrive byte for byte")
    }

    @Test func textOnStandardInputIsStillSharedAsText() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        await machines.ether.setReachable(machines.desktop.radio.address, false)
        let handoff = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { handoff.remove() }
        // A multi-byte character split across two 64 KiB frames is still text.
        let text = String(repeating: "a", count: 65_535) + "é" + String(repeating: "ü", count: 40_000)
        let shared = try await handoff.run(["share", "--to", "desktop", "-"], input: text)
        #expect(shared.status == 0, "\(shared.error)")
        let entries = try await sharing(machines.laptop).outbox()
        #expect(entries.map(\.kind) == ["text"] && entries.map(\.name) == ["text.txt"], "\(entries)")
        let (items, _) = try spool(machines.laptop)
        let data = machines.laptop.stateDirectory.appendingPathComponent("outbox/\(items[0])/data")
        #expect(try Data(contentsOf: data) == Data(text.utf8))
    }

    /// A limit the pipe passes: `--max-item` (1 MiB) or the outbox quota (2 MiB), each with 4 MiB of input.
    enum PassedLimit: CaseIterable, Sendable, CustomTestStringConvertible {
        case maximumItem, outboxQuota

        var testDescription: String { self == .maximumItem ? "--max-item" : "the outbox quota" }

        func apply(_ configuration: inout DaemonConfiguration) {
            switch self {
            case .maximumItem: configuration.share.maximumItemSize = 1 << 20
            case .outboxQuota: configuration.share.outboxQuota = 2 << 20
            }
        }

        /// What the CLI's error must say.
        var saying: [String] {
            switch self {
            case .maximumItem: ["the item is more than 1.0 MB (1048576 bytes), the most the outbox takes"]
            case .outboxQuota: ["the outbox is full", "nothing was kept"]
            }
        }
    }

    @Test(arguments: PassedLimit.allCases)
    func aPipePastALimitIsRefusedAndNothingIsKept(_ limit: PassedLimit) async throws {
        let machines = try await TwoMachines.make(laptop: limit.apply)
        defer { Task { await machines.shutDown() } }
        let handoff = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { handoff.remove() }
        let shared = try await handoff.run(["share", "--to", "desktop", "-"], inputData: blob(4 << 20))
        #expect(shared.status != 0)
        for words in limit.saying { #expect(shared.error.contains(words), "\(shared.error)") }
        #expect(try await sharing(machines.laptop).outbox().isEmpty)
        let (items, staging) = try spool(machines.laptop)
        #expect(items.isEmpty && staging.isEmpty, "kept: \(items) \(staging)")
    }

    /// Each stream being read holds a thread of the daemon for as long as its writer keeps it open: past
    /// `maximumOpenStreams` (4) one more is refused at once with Busy, the four go on, and once one has ended
    /// another is taken. Every item that was taken is in the outbox, whole.
    @Test func aFifthStreamWhileFourAreReadIsRefusedAndTheFourGoOn() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        await machines.ether.setReachable(machines.desktop.radio.address, false)
        let handoff = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { handoff.remove() }
        let open = try (0..<4).map { _ in try OpenShare(handoff) }
        let staging = machines.laptop.stateDirectory.appendingPathComponent("outbox/.staging")
        _ = try await eventually(within: 30) { () -> Bool? in
            try FileManager.default.contentsOfDirectory(atPath: staging.path).count == 4 ? true : nil
        }

        let refused = try await handoff.run(["share", "--to", "desktop", "-"], input: "one too many")
        #expect(refused.status != 0)
        #expect(refused.error.contains("4 shares from standard input are being read already"), "\(refused.error)")

        #expect(try open[0].finish() == 0)
        let next = try await handoff.run(["share", "--to", "desktop", "-"], input: "after one ended")
        #expect(next.status == 0, "\(next.error)")
        for share in open.dropFirst() { #expect(try share.finish() == 0) }
        let entries = try await sharing(machines.laptop).outbox()
        #expect(entries.count == 5, "\(entries)")
        #expect(entries.filter { $0.totalBytes == OpenShare.bytes }.count == 4, "\(entries)")
    }

    /// The CLI killed while its input still flows: the daemon has bytes staged, sees the stream end without its
    /// trailer, and drops them.
    @Test func aCommandKilledMidStreamLeavesNoItem() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        await machines.ether.setReachable(machines.desktop.radio.address, false)
        let handoff = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { handoff.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: handoff.executable)
        process.arguments = ["share", "--to", "desktop", "-"]
        process.environment = handoff.environment
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The producer stays alive (its end of the pipe open) after the CLI dies, as `tail -f` would.
        try stdin.fileHandleForWriting.write(contentsOf: blob(1 << 20))
        let staging = machines.laptop.stateDirectory.appendingPathComponent("outbox/.staging")
        _ = try await eventually(within: 20) { () -> Bool? in
            let folders = try FileManager.default.contentsOfDirectory(atPath: staging.path)
            let held = folders.compactMap { folder in
                try? FileManager.default.attributesOfItem(atPath: staging.appendingPathComponent("\(folder)/data").path)[.size]
                    as? Int
            }
            return held.contains { $0 > 0 } ? true : nil
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        _ = try await eventually(within: 20) { () -> Bool? in
            try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty ? true : nil
        }
        try? stdin.fileHandleForWriting.close()
        #expect(try await sharing(machines.laptop).outbox().isEmpty)
        #expect(try spool(machines.laptop).items.isEmpty)
    }
}

/// `handoff share --to desktop -` with a pipe on standard input that stays open, holding `bytes` written, until
/// `finish()` closes it.
private final class OpenShare {
    static let bytes = 100_000
    private let process = Process()
    private let input = Pipe()

    init(_ handoff: HandoffProgram) throws {
        process.executableURL = URL(fileURLWithPath: handoff.executable)
        process.arguments = ["share", "--to", "desktop", "-"]
        process.environment = handoff.environment
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data(repeating: 0xFF, count: Self.bytes))
    }

    /// Ends the input and waits for the CLI: its exit status.
    func finish() throws -> Int32 {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}
