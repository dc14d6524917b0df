import Foundation
@testable import HandoffDaemon
import HandoffShared
import Testing

/// The daemon's levelled log: what is dropped, how a line is tagged, and the journal's format under systemd,
/// through the real handoffd.
@Suite("handoffd's log levels and the journal's conventions")
struct DaemonLoggerTests {
    @Test("lines below the threshold are dropped before their text is built; the rest keep their level")
    func threshold() {
        let seen = Locked<[(DaemonLogger.Level, String)]>([])
        let built = Locked(0)
        let logger = DaemonLogger(threshold: .notice) { level, message in seen.withLock { $0.append((level, message)) } }
        func text(_ message: String) -> String {
            built.withLock { $0 += 1 }
            return message
        }
        logger.debug(text("radio: connect"))
        logger.log(text("offers a note"))
        logger.notice(text("radio: discovery fallback"))
        logger.warning(text("pairing failed"))
        logger.error(text("cannot save state"))
        #expect(built.value == 3)
        #expect(seen.value.map(\.0) == [.notice, .warning, .error])
        #expect(seen.value.map(\.1) == ["radio: discovery fallback", "pairing failed", "cannot save state"])
    }

    @Test("a line sink sees warnings, errors and diagnostics tagged with their level, the usual lines as they are")
    func tags() {
        let lines = Locked<[String]>([])
        let logger = DaemonLogger(threshold: .debug, lines: { line in lines.withLock { $0.append(line) } })
        logger.log("continued a note")
        logger.notice("radio: monitor refused")
        logger.warning("pairing failed")
        logger.error("cannot save state")
        logger.debug("radio: connect")
        #expect(lines.value == ["continued a note", "radio: monitor refused", "warning: pairing failed",
                                "error: cannot save state", "debug: radio: connect"])
    }

    /// Issue 25 §6: a peer's device name, as a pairing beacon or a title carries it, reaches the log escaped.
    static let hostileName = "\u{1B}[2K\r654321\u{1B}[8m"

    @Test("a hostile device name is logged escaped: no escape sequence, no carriage return")
    func hostileNameIsEscaped() {
        let lines = Locked<[String]>([])
        let logger = DaemonLogger(threshold: .debug, lines: { line in lines.withLock { $0.append(line) } })
        logger.log("pairing: beacon from '\(Self.hostileName)'")
        #expect(lines.value == ["pairing: beacon from '\\u{1B}[2K\\u{D}654321\\u{1B}[8m'"])
    }

    @Test("a name holding \\n<0> makes exactly one journal line, at the level it was logged at")
    func forgedJournalRecord() {
        let written = Locked("")
        let logger = DaemonLogger(threshold: .debug) { level, message in
            written.withLock { $0 += DaemonLogger.line(level, message, journal: true) }
        }
        logger.warning("share from 'laptop\n<0>handoffd: owner changed to mallory' refused\u{202E}")
        #expect(written.value.split(separator: "\n", omittingEmptySubsequences: false).count == 2)
        #expect(written.value == "<4>share from 'laptop\\u{A}<0>handoffd: owner changed to mallory' refused"
            + "\\u{202E}\n")
    }

    @Test("JOURNAL_STREAM counts only when it names this process's standard error")
    func journalStream() throws {
        var status = stat()
        try #require(fstat(STDERR_FILENO, &status) == 0)
        #expect(DaemonLogger.standardErrorIsJournal("\(status.st_dev):\(status.st_ino)"))
        #expect(!DaemonLogger.standardErrorIsJournal("\(status.st_dev):\(status.st_ino &+ 1)"))
        #expect(!DaemonLogger.standardErrorIsJournal(nil))
        #expect(!DaemonLogger.standardErrorIsJournal("garbage"))
        #expect(!DaemonLogger.standardErrorIsJournal("1:2:3"))
    }

    @Test("the real handoffd: priority prefixes and no timestamp into the journal, a timestamp and a tag elsewhere")
    func realDaemon() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoffd-log-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // No BlueZ to reach: handoffd stops with its one error line, exit status 1.
        func run(journal: Bool) throws -> String {
            let log = directory.appendingPathComponent(journal ? "journal.log" : "plain.log")
            try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
            let handle = try FileHandle(forWritingTo: log)
            defer { try? handle.close() }
            var status = stat()
            try #require(fstat(handle.fileDescriptor, &status) == 0)
            let daemon = Process()
            daemon.executableURL = DaemonKillTests.root.appendingPathComponent(".build/debug/handoffd")
            daemon.arguments = ["--bus", "unix:path=\(directory.path)/no-api-bus", "--state-dir",
                                directory.appendingPathComponent("state").path, "--notify-bus", "none"]
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory.path)/no-system-bus"
            environment["JOURNAL_STREAM"] = journal ? "\(status.st_dev):\(status.st_ino)" : nil
            daemon.environment = environment
            daemon.standardError = handle
            daemon.standardOutput = FileHandle.nullDevice
            try daemon.run()
            daemon.waitUntilExit()
            #expect(daemon.terminationStatus == 1)
            return try String(contentsOf: log, encoding: .utf8)
        }

        let journal = try run(journal: true)
        #expect(journal.hasPrefix("<3>cannot reach BlueZ (caused by: [BlueZError.bus] "), "\(journal)")
        #expect(!journal.contains("handoffd:"))
        let plain = try run(journal: false)
        let pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ handoffd: error: cannot reach BlueZ \(caused by: \[BlueZError/
        #expect(plain.firstMatch(of: pattern) != nil, "\(plain)")
    }
}
