import FoundationEssentials
import HandoffClient
#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon writes what it does: one line per event, each with a level, below a threshold dropped before
/// it is formatted.
///
/// ``standardError(threshold:environment:)`` follows the journal's conventions when systemd connected standard
/// error to it (`JOURNAL_STREAM` names that stream): each line starts with its syslog priority, `<4>`, and carries
/// no timestamp of its own, so `journalctl -p warning -u handoffd` filters by level. Elsewhere (a terminal, a
/// file) a line is `2026-11-29T21:04:05Z handoffd: warning: …`.
///
/// Every message is one line, whoever built it: `log` passes it through ``TerminalText/escaped(_:keeping:)``
/// before any sink sees it, so a newline, an escape sequence or a bidirectional override in a peer's device name,
/// a title or a file name is written as `\u{A}`, `\u{1B}`, `\u{202E}`, and can neither start a forged journal
/// record (`\n<0>…`) nor drive the terminal that shows the log.
public struct DaemonLogger: Sendable {
    /// How much a line matters, with syslog's numbers (sd-daemon(3)): lower is more important.
    public enum Level: Int, Comparable, Sendable, CustomStringConvertible {
        /// The daemon cannot go on, or lost something.
        case error = 3
        /// Something failed that the daemon works around or retries.
        case warning = 4
        /// A change of mode the user should know of (a fallback, a radio recovering).
        case notice = 5
        /// What the daemon does: offers, continues, pairings, deliveries.
        case info = 6
        /// Diagnostics (`handoffd --debug`).
        case debug = 7

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    /// The least important level still written.
    public let threshold: Level
    private let sink: @Sendable (Level, String) -> Void

    /// A logger handing each line of `threshold` or above, with its level, to `sink`.
    public init(threshold: Level = .info, _ sink: @escaping @Sendable (Level, String) -> Void) {
        self.threshold = threshold
        self.sink = sink
    }

    /// A logger handing each line of `threshold` or above to `sink`, prefixed with its level unless it is `info`.
    public init(threshold: Level = .info, lines sink: @escaping @Sendable (String) -> Void) {
        self.init(threshold: threshold) { level, message in sink(Self.tagged(level, message)) }
    }

    /// Logs `message` at `level`, escaped to one line; the message is not built when the level is below the
    /// threshold. The one way into every sink.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        sink(level, TerminalText.escaped(message()))
    }

    /// Logs `message` at `info`.
    public func log(_ message: @autoclosure () -> String) {
        log(.info, message())
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }

    /// Standard error, in the journal's format when `environment`'s `JOURNAL_STREAM` is this process's standard
    /// error, else with a UTC timestamp. One write(2) per line, so lines of concurrent writers do not interleave.
    /// The timestamp is the real wall clock's, not the daemon's `DaemonConfiguration.clock`: the logger is built
    /// before the daemon and its clock exist (and a log line says when it was written, on any clock).
    public static func standardError(threshold: Level = .info,
                                     environment: [String: String] = ProcessInfo.processInfo.environment)
        -> DaemonLogger {
        let journal = standardErrorIsJournal(environment["JOURNAL_STREAM"])
        return DaemonLogger(threshold: threshold) { level, message in
            let line = Self.line(level, message, journal: journal)
            _ = Array(line.utf8).withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
    }

    /// The line standard error gets for `message` (already escaped by `log`): `<4>message` for the journal, else
    /// with a UTC timestamp and the level's tag.
    static func line(_ level: Level, _ message: String, journal: Bool) -> String {
        journal ? "<\(level.rawValue)>\(message)\n"
            : "\(Date().formatted(.iso8601)) handoffd: \(tagged(level, message))\n"
    }

    /// Lines on standard error with timestamps, `info` and above (the journal's format under systemd).
    public static let standardError = standardError()

    /// Discards everything.
    public static let silent = DaemonLogger(threshold: .error) { _, _ in }

    /// `message` with its level in front, except for `info` and `notice`, which are most lines.
    static func tagged(_ level: Level, _ message: String) -> String {
        level == .info || level == .notice ? message : "\(level): \(message)"
    }

    /// Whether `JOURNAL_STREAM` (`DEVICE:INODE`, set by systemd for a service whose output goes to the journal)
    /// names the stream on file descriptor 2; a child that inherited the variable but not the stream gets false.
    static func standardErrorIsJournal(_ journalStream: String?) -> Bool {
        guard let journalStream else { return false }
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
