import Foundation
import Testing

/// The real handoffd's signals besides the termination ones.
@Suite struct DaemonSignalTests {
    /// SIGUSR1 logs how many messages each bus connection was handed (the VM's cost benches and hostile-flood read
    /// that line) and changes nothing else. Its handler runs on the daemon's signal thread: a handler that the
    /// compiler took for main-actor code trapped there (then "Illegal instruction" in `dispatch_assert_queue`, when
    /// a Dispatch queue ran it), which killed the daemon in CI's hostile-flood.
    @Test func sigusr1LogsTheBusStatisticsAndTheDaemonKeepsAnswering() async throws {
        try await Self.withDaemon { daemon, program, logPath in
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

    /// handoffd runs no Dispatch thread, at rest, with a note current, or after a signal: Dispatch's first worker
    /// starts libdispatch's workqueue monitor, which would wake the idle daemon every second for good
    /// (Docs/performance.md, "At rest"). Every task runs on the daemon's own loop (`LoopExecutor`); its other threads
    /// are the signal thread and one per bus connection, and all of them keep the program's name (Dispatch names
    /// its threads after its queues: "com.apple.root.default-qos", "…-qos.overcommit").
    @Test func handoffdRunsNoDispatchThread() async throws {
        try await Self.withDaemon { daemon, program, _ in
            let pid = daemon.processIdentifier
            func threads() throws -> [String] { try Self.threadNames(pid) }
            let name = try Self.programName(pid)
            let atRest = try threads()
            #expect(atRest.allSatisfy { $0 == name }, "at rest: \(atRest)")

            let edit = try await program.run(["note", "edit", "rest", "--stdin", "--grace", "60"],
                                             input: "# Rest\nidle\n")
            #expect(edit.status == 0, "\(edit)")
            #expect(try await program.run(["status"]).status == 0)
            #expect(kill(pid, SIGUSR1) == 0)
            #expect(try await program.run(["status"]).status == 0)
            let current = try threads()
            #expect(current.allSatisfy { $0 == name }, "with a note current: \(current)")
            #expect(current.count <= 5, "\(current)")
        }
    }

    /// Runs `body` with the real handoffd over bluezoo, the CLI for it and the daemon's log file.
    static func withDaemon(_ body: (Process, HandoffProgram, URL) async throws -> Void) async throws {
        signal(SIGPIPE, SIG_IGN)
        let bluezoo = try Bluezoo()
        defer { bluezoo.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-\(UUID().uuidString)")
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
        try await body(daemon, program, logPath)
    }

    /// The names (`comm`) of a process's threads.
    static func threadNames(_ pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").map { task in
            try String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A process's name (`comm` of its main thread).
    static func programName(_ pid: Int32) throws -> String {
        try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
