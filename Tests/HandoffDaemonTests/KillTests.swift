import Foundation
import HandoffClient
import Testing

/// `kill -9` of the real `handoff` process at the moment it writes a note (issue 14 §2): `note edit --stdin`
/// saving, and `continue` restoring. Half the kills land within 50 ms of the note's temporary file appearing (during
/// the write, the fsync or the rename), half at a random moment of the process's life. After every kill the note
/// holds, byte for byte, one version the user saved or was offered: never a mix, never empty, never gone.
@Suite(.serialized) struct KillTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["HANDOFF_KILL_ROUNDS"] ?? "") ?? 24

    /// About 600 KB, different in every round, under the payload limit.
    private func version(_ round: Int) -> String {
        String(repeating: "round \(round): the same line again, to make the write take a while\n", count: 9000)
    }

    @Test func killingNoteEditWhileItSavesLeavesTheOldOrTheNewText() async throws {
        signal(SIGPIPE, SIG_IGN)
        let machines = try await TwoMachines.make(pair: false)
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        defer { laptop.remove() }
        let path = laptop.notesDirectory.appendingPathComponent("todo.md")
        var current = version(0)
        let first = try await laptop.run(["note", "edit", "todo", "--stdin", "--grace", "0"], input: current)
        #expect(first.status == 0, "\(first.error)")
        let lifetime = try await timed { _ = try await laptop.run(["note", "edit", "todo", "--stdin", "--grace", "0"],
                                                                  input: current) }
        var tally = Tally()
        for round in 1...Self.rounds {
            let next = version(round)
            let point: KillPoint = round.isMultiple(of: 2)
                ? .atTemporaryFile(laptop.notesDirectory.path, ".todo.md.tmp-")
                : .afterDelay(lifetime * Double.random(in: 0...1))
            let outcome = try await runAndKill(laptop, ["note", "edit", "todo", "--stdin", "--grace", "0"],
                                               input: Data(next.utf8), at: point)
            let text = try String(contentsOf: path, encoding: .utf8)
            #expect(text == current || text == next, "round \(round): the note is neither version (\(text.count) bytes)")
            tally.add(outcome, changed: text == next)
            current = text
        }
        tally.report("note edit --stdin")
        #expect(tally.killed > 0, "no kill landed while the process ran: \(tally)")
    }

    @Test func killingContinueWhileItRestoresLeavesTheOldOrTheNewText() async throws {
        signal(SIGPIPE, SIG_IGN)
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }
        let path = desktop.notesDirectory.appendingPathComponent("todo.md")
        var offered = [version(0)]
        _ = try await laptop.run(["note", "edit", "todo", "--stdin"], input: offered[0])
        try await waitForAvailability(desktop)
        let first = try await desktop.run(["continue"])
        #expect(first.status == 0, "\(first.error)")
        let lifetime = try await timed { _ = try await desktop.run(["continue"]) }
        var tally = Tally()
        var current = try String(contentsOf: path, encoding: .utf8)
        for round in 1...Self.rounds {
            let next = version(round)
            offered.append(next)
            let saved = try await laptop.run(["note", "edit", "todo", "--stdin"], input: next)
            #expect(saved.status == 0, "\(saved.error)")
            try await waitForAvailability(desktop)
            let point: KillPoint = round.isMultiple(of: 2)
                ? .atTemporaryFile(desktop.notesDirectory.path, ".todo.md.tmp-")
                : .afterDelay(lifetime * Double.random(in: 0...1))
            let outcome = try await runAndKill(desktop, ["continue"], input: Data(), at: point)
            let text = try String(contentsOf: path, encoding: .utf8)
            #expect(text == current || text == next, "round \(round): the note is neither version (\(text.count) bytes)")
            tally.add(outcome, changed: text == next)
            current = text
            // A kill between the rename and the restore record makes the next restore keep both: every copy is
            // still one whole offered version.
            for name in try FileManager.default.contentsOfDirectory(atPath: desktop.notesDirectory.path)
            where !name.hasPrefix(".") {
                let copy = try String(contentsOf: desktop.notesDirectory.appendingPathComponent(name), encoding: .utf8)
                #expect(offered.contains(copy), "round \(round): \(name) is not an offered version")
            }
        }
        tally.report("continue")
        #expect(tally.killed > 0, "no kill landed while the process ran: \(tally)")
    }

    // MARK: helpers

    enum KillPoint {
        /// When a file whose name starts with the prefix appears in the directory, plus 0-50 ms (so some kills
        /// land during the write or fsync, some after the rename).
        case atTemporaryFile(String, String)
        /// After this many seconds.
        case afterDelay(Double)
    }

    struct Outcome {
        /// The process was still running when SIGKILL was sent.
        var killed: Bool
        /// Killed at most 50 ms after its temporary file appeared.
        var duringWrite: Bool
    }

    struct Tally: CustomStringConvertible {
        var rounds = 0, killed = 0, duringWrite = 0, changed = 0

        mutating func add(_ outcome: Outcome, changed: Bool) {
            rounds += 1
            killed += outcome.killed ? 1 : 0
            duringWrite += outcome.duringWrite ? 1 : 0
            self.changed += changed ? 1 : 0
        }

        var description: String {
            "\(rounds) rounds, \(killed) killed while running (\(duringWrite) timed from the temporary file's appearance), "
                + "\(changed) left the new text, \(rounds - changed) the old, 0 anything else"
        }

        func report(_ what: String) {
            print("kill -9 of \(what): \(self)")
        }
    }

    private func timed(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Runs `handoff arguments` and sends it SIGKILL at `point`, on a Dispatch thread (the daemons under test need
    /// the cooperative pool).
    private func runAndKill(_ program: HandoffProgram, _ arguments: [String], input: Data, at point: KillPoint)
        async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.executable)
        process.arguments = arguments
        process.environment = program.environment
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                try? stdin.fileHandleForWriting.write(contentsOf: input)
                try? stdin.fileHandleForWriting.close()
            }
            DispatchQueue.global().async {
                var duringWrite = false
                switch point {
                case .atTemporaryFile(let directory, let prefix):
                    let deadline = Date().addingTimeInterval(20)
                    while process.isRunning, Date() < deadline {
                        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                        if names.contains(where: { $0.hasPrefix(prefix) }) {
                            duringWrite = true
                            usleep(UInt32.random(in: 0...50_000))
                            break
                        }
                    }
                case .afterDelay(let seconds):
                    usleep(UInt32(seconds * 1_000_000))
                }
                let killed = process.isRunning && kill(process.processIdentifier, SIGKILL) == 0
                process.waitUntilExit()
                continuation.resume(returning: Outcome(killed: killed, duringWrite: killed && duringWrite))
            }
        }
    }

    /// Up to 30 s: the kill rounds run beside other suites, and a loaded host is slower than the usual 10 s.
    private func waitForAvailability(_ program: HandoffProgram) async throws {
        _ = try await eventually(within: 30) {
            let prompt = try await program.run(["prompt", "--marker", "*"])
            return prompt.output == "* " ? true : nil
        }
    }
}
