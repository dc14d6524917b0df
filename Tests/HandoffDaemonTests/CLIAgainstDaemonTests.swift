import Foundation
import Testing

/// The real `handoff` binary against two in-process daemons, each on its own private bus.
@Suite(.serialized) struct CLIAgainstDaemonTests {
    @Test func noteEditOnTheLaptopThenWatchAndContinuePrintOnTheDesktop() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }

        let (watcher, watchOutput) = try desktop.start(["watch"])
        defer { watcher.terminate() }
        try await Task.sleep(for: .milliseconds(300))      // let watch subscribe before the note is offered

        let note = "# Groceries\nmilk\neggs\n"
        let edit = try await laptop.run(["note", "edit", "groceries", "--stdin", "--grace", "60"], input: note)
        #expect(edit.status == 0, "\(edit.error)")
        #expect(edit.error.contains("offered to your nearby devices for 60 more seconds"))

        let line = try await firstLine(of: watchOutput)
        #expect(line == "available: org.handoff.note from laptop")
        // `watch` runs all day: on its own executor, with no Dispatch thread (whose monitor would wake it at 1 Hz).
        let watchThreads = try DaemonSignalTests.threadNames(watcher.processIdentifier)
        let watchName = try DaemonSignalTests.programName(watcher.processIdentifier)
        #expect(watchThreads.allSatisfy { $0 == watchName }, "handoff watch's threads: \(watchThreads)")

        let printed = try await desktop.run(["continue", "--print"])
        #expect(printed.status == 0, "\(printed.error)")
        #expect(printed.output == note)

        let status = try await laptop.run(["status", "--json"])
        #expect(status.output.contains("\"currentActivity\""))
        let devices = try await desktop.run(["devices"])
        #expect(devices.output.hasPrefix("laptop  in range"))
    }

    @Test func continueRestoresTheNoteAndKeepsAConflictCopyRatherThanOverwrite() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }

        _ = try await laptop.run(["note", "edit", "todo", "--stdin"], input: "# Todo\ncall Sam\n")
        try await waitForAvailability(desktop)
        let restored = try await desktop.run(["continue"])
        #expect(restored.status == 0, "\(restored.error)")
        #expect(restored.error.contains("restored note 'todo'"))
        let path = desktop.notesDirectory.appendingPathComponent("todo.md")
        #expect(try String(contentsOf: path, encoding: .utf8) == "# Todo\ncall Sam\n")

        // The desktop's user changes the note; the laptop offers another version: both are kept.
        try "# Todo\ncall Sam\nbuy milk\n".write(to: path, atomically: true, encoding: .utf8)
        _ = try await laptop.run(["note", "edit", "todo", "--stdin"], input: "# Todo\ncall Sam\nwater plants\n")
        try await waitForAvailability(desktop)
        let conflict = try await desktop.run(["continue"])
        #expect(conflict.status == 5, "\(conflict.error)")
        #expect(conflict.error.contains("kept your note 'todo'"))
        #expect(try String(contentsOf: path, encoding: .utf8) == "# Todo\ncall Sam\nbuy milk\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: desktop.notesDirectory.path)
            .filter { !$0.hasPrefix(".") }
        #expect(names.count == 2)
        #expect(names.contains { $0.hasPrefix("todo (from laptop, ") })
    }

    @Test func failuresReachTheUserWithTheirCodeAndExitStatus() async throws {
        let machines = try await TwoMachines.make(desktop: { $0.handoff.maximumPayloadSize = 4096 })
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }

        let nothing = try await desktop.run(["continue", "--print"])
        #expect(nothing.status == 3)

        _ = try await laptop.run(["note", "edit", "big", "--stdin"], input: String(repeating: "x", count: 10_000))
        try await waitForAvailability(desktop)
        let tooLarge = try await desktop.run(["continue", "--print"])
        #expect(tooLarge.status == 4)
        #expect(tooLarge.error.contains("[4611 userInfoTooLarge]"))
        #expect(tooLarge.error.contains("org.handoff.Error.UserInfoTooLarge"))

        let unknown = try await desktop.run(["unpair", "toaster"])
        #expect(unknown.status == 66)
    }

    @Test func aDaemonThatIsNotThereMeansExit69() async throws {
        let program = try HandoffProgram(busAddress: "unix:path=/nonexistent/handoff-bus")
        defer { program.remove() }
        let status = try await program.run(["status"])
        #expect(status.status == 69)
        #expect(status.error.hasPrefix("handoff: error: the handoff daemon is not reachable"))
    }

    /// A failed continue says why, down to the radio's own error: one indented "caused by" line per cause on
    /// standard error, and with --json the same chain as a list.
    @Test func aFailedContinuePrintsTheRadiosCauseAndGivesItAsAListWithJSON() async throws {
        let machines = try await TwoMachines.make()
        defer { Task { await machines.shutDown() } }
        let laptop = try HandoffProgram(busAddress: machines.laptop.bus.address)
        let desktop = try HandoffProgram(busAddress: machines.desktop.bus.address)
        defer { laptop.remove(); desktop.remove() }

        _ = try await laptop.run(["note", "edit", "todo", "--stdin"], input: "# Todo\ncall Sam\n")
        try await waitForAvailability(desktop)
        await machines.ether.setReachable(machines.laptop.radio.address, false)
        let failed = try await desktop.run(["continue", "--print", "--json"])
        #expect(failed.status == 4, "\(failed.error)")
        let lines = failed.error.split(separator: "\n")
        #expect(lines.first?.hasPrefix("handoff: error: [4609 connectionUnavailable]") == true, "\(failed.error)")
        #expect(lines.dropFirst().first?.hasPrefix("  caused by: [RadioError.unreachable] ") == true, "\(failed.error)")
        #expect(failed.error.contains("is out of range or serves nothing"))

        struct Report: Decodable {
            struct Body: Decodable {
                struct Cause: Decodable { let kind: String; let message: String }
                let message: String
                let exitCode: Int
                let causes: [Cause]
            }
            let error: Body
        }
        let report = try JSONDecoder().decode(Report.self, from: Data(failed.output.utf8))
        #expect(report.error.exitCode == 4)
        #expect(report.error.message.hasPrefix("[4609 connectionUnavailable]"))
        #expect(report.error.causes.first?.kind == "RadioError.unreachable")
        #expect(report.error.causes.first?.message.hasSuffix("is out of range or serves nothing") == true)
    }

    private func waitForAvailability(_ program: HandoffProgram) async throws {
        _ = try await eventually {
            let prompt = try await program.run(["prompt", "--marker", "*"])
            return prompt.output == "* " ? true : nil
        }
    }

    private func firstLine(of handle: FileHandle) async throws -> String {
        try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        var collected = Data()
                        while !collected.contains(UInt8(ascii: "\n")) {
                            let chunk = handle.availableData
                            if chunk.isEmpty { break }
                            collected.append(chunk)
                        }
                        let text = String(decoding: collected, as: UTF8.self)
                        continuation.resume(returning: text.split(separator: "\n").first.map(String.init))
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let line = first else {
                throw TestFailure("handoff watch printed nothing within 10 s")
            }
            return line
        }
    }
}
