import Foundation
import Testing

/// The real handoffd's signals besides the termination ones.
@Suite struct DaemonSignalTests {
    /// SIGUSR1 logs how many messages each bus connection was handed (the VM's cost benches and hostile-flood read
    /// that line) and changes nothing else. Its handler runs on a Dispatch queue of its own: a handler that the
    /// compiler took for main-actor code trapped there ("Illegal instruction" in `dispatch_assert_queue`), which
    /// killed the daemon in CI's hostile-flood.
    @Test func sigusr1LogsTheBusStatisticsAndTheDaemonKeepsAnswering() async throws {
        signal(SIGPIPE, SIG_IGN)
        let bluezoo = try Bluezoo()
        defer { bluezoo.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-usr1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let program = try HandoffProgram(busAddress: bluezoo.address)
        defer { program.remove() }
        let logPath = state.appendingPathComponent("handoffd.log")
        try #require(FileManager.default.createFile(atPath: logPath.path, contents: nil))
        let log = try FileHandle(forWritingTo: logPath)
        defer { try? log.close() }

        let daemon = try await DaemonKillTests.startDaemon(bluezoo, state: state.appendingPathComponent("state"),
                                                           program: program, log: log)
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        #expect(kill(daemon.processIdentifier, SIGUSR1) == 0)
        let line = try await eventually(within: 10) {
            try String(contentsOf: logPath, encoding: .utf8).split(separator: "\n")
                .first { $0.contains("bus statistics: BlueZ connection") }
        }
        #expect(line.contains("API connection"), "\(line)")
        let text = try String(contentsOf: logPath, encoding: .utf8)
        #expect(daemon.isRunning, "handoffd died after SIGUSR1: \(text)")
        #expect(try await program.run(["status"]).status == 0, "handoffd does not answer after SIGUSR1")
    }
}
