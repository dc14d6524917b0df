import Foundation
@testable import HandoffDaemon
@testable import HandoffKit
import Testing

/// `kill -9` of the real `handoffd` (over bluezoo, scripts/bluezoo-bus.sh) while `handoff note edit --stdin` saves
/// and offers a note, and while the daemon itself saves `state.json` (every new activity records its sequence):
/// the note is always one whole version, `trust.json` and `state.json` always load, and the daemon starts again
/// on them (issue 14 §2).
@Suite(.serialized) struct DaemonKillTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["HANDOFF_KILL_ROUNDS"] ?? "") ?? 24
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func version(_ round: Int) -> String {
        String(repeating: "round \(round): a line of the note, again and again\n", count: 4000)
    }

    @Test func killingTheDaemonWhileANoteIsSavedAndOfferedLosesNothing() async throws {
        signal(SIGPIPE, SIG_IGN)
        let bluezoo = try Bluezoo()
        defer { bluezoo.stop() }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let program = try HandoffProgram(busAddress: bluezoo.address)
        defer { program.remove() }
        let path = program.notesDirectory.appendingPathComponent("todo.md")

        var daemon = try await Self.startDaemon(bluezoo, state: state, program: program)
        var current = version(0)
        #expect(try await program.run(["note", "edit", "todo", "--stdin", "--grace", "0"], input: current).status == 0)
        var killedDuringStateSave = 0
        var killedRunning = 0
        var newText = 0
        for round in 1...Self.rounds {
            let next = version(round)
            let edit = Task { try await program.run(["note", "edit", "todo", "--stdin", "--grace", "0"], input: next) }
            // Half the rounds: kill as soon as the daemon's state.json temporary file appears (its save, when the
            // edit's SetCurrentActivity or UpdateCurrentActivity advanced the sequence); half: a random moment.
            let atSave = round.isMultiple(of: 2)
            let (killed, duringSave) = await kill(daemon, atTemporaryFileIn: atSave ? state.path : nil,
                                                  prefix: ".state.json.tmp-", orAfter: Double.random(in: 0...0.4))
            killedRunning += killed ? 1 : 0
            killedDuringStateSave += duringSave ? 1 : 0
            _ = try await edit.value   // the edit fails to offer when the daemon died first: the note is saved anyway
            let text = try String(contentsOf: path, encoding: .utf8)
            #expect(text == current || text == next, "round \(round): the note is neither version")
            newText += text == next ? 1 : 0
            current = text
            // What the daemon wrote is whole: both files load, and a new daemon starts on them.
            #expect(throws: Never.self) { _ = try StateDirectory(state).loadState() }
            #expect(throws: Never.self) { _ = try TrustStore.load(from: try AtomicFile.read(state.appendingPathComponent("trust.json"))) }
            daemon = try await Self.startDaemon(bluezoo, state: state, program: program)
        }
        daemon.terminate()
        daemon.waitUntilExit()
        print("kill -9 of handoffd: \(Self.rounds) rounds, \(killedRunning) killed while running "
            + "(\(killedDuringStateSave) at its state.json save), note: \(newText) new text, "
            + "\(Self.rounds - newText) old, 0 anything else; state.json and trust.json loaded and the daemon "
            + "restarted every time")
        #expect(killedDuringStateSave > 0, "no kill landed at the daemon's save")
    }

    // MARK: helpers

    /// Starts the real handoffd on bluezoo's hci0 (its log to `log`, else nowhere) and waits until it answers.
    static func startDaemon(_ bluezoo: Bluezoo, state: URL, program: HandoffProgram,
                            log: FileHandle = .nullDevice) async throws -> Process {
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        daemon.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "os.execvp(sys.argv[1], sys.argv[1:])", Self.root.appendingPathComponent(".build/debug/handoffd").path,
                            "--bus", bluezoo.address, "--adapter", "hci0", "--state-dir", state.path,
                            "--name", "laptop", "--notify-bus", "none"]
        daemon.environment = ["DBUS_SYSTEM_BUS_ADDRESS": bluezoo.address, "PATH": "/usr/bin:/bin"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = log
        try daemon.run()
        _ = try await eventually(within: 20) {
            guard daemon.isRunning else { throw TestFailure("handoffd exited with \(daemon.terminationStatus)") }
            return try await program.run(["status"]).status == 0 ? true : nil
        }
        return daemon
    }

    /// Sends SIGKILL when a file with `prefix` appears in `directory` (if given), else after `delay` seconds.
    private func kill(_ process: Process, atTemporaryFileIn directory: String?, prefix: String, orAfter delay: Double)
        async -> (killed: Bool, duringSave: Bool) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var seen = false
                if let directory {
                    let deadline = Date().addingTimeInterval(10)
                    while process.isRunning, Date() < deadline, !seen {
                        seen = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                            .contains { $0.hasPrefix(prefix) }
                    }
                } else {
                    usleep(UInt32(delay * 1_000_000))
                }
                let killed = process.isRunning && Glibc.kill(process.processIdentifier, SIGKILL) == 0
                process.waitUntilExit()
                continuation.resume(returning: (killed, killed && seen))
            }
        }
    }
}

/// scripts/bluezoo-bus.sh: a private system bus with bluezoo (a BlueZ mock) on it, for a real handoffd.
final class Bluezoo: @unchecked Sendable {
    let process = Process()
    let address: String

    init() throws {
        // Foundation's Process hands children the test runner's signal mask, in which SIGTERM is blocked: start
        // the script through an exec wrapper that clears it, so that terminate() stops it (as BlueZTestSupport does).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); "
            + "os.execvp(sys.argv[1], sys.argv[1:])",
            DaemonKillTests.root.appendingPathComponent("scripts/bluezoo-bus.sh").path]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("READY\n") {
            let chunk = stdout.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw TestFailure("bluezoo-bus.sh ended before READY: \(text)") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") }) else {
            throw TestFailure("no bus address from bluezoo-bus.sh: \(text)")
        }
        address = String(line.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count))
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
