import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a command's output goes and its input comes from: the process's standard streams, or captures in tests.
struct Terminal: Sendable {
    /// Writes to standard output.
    let out: @Sendable (String) -> Void
    /// Writes to standard error.
    let err: @Sendable (String) -> Void
    /// Reads all of standard input.
    let readInput: @Sendable () throws -> Data
    /// Reads one line of standard input (for interactive questions), nil at end of input.
    let readLine: @Sendable () -> String?
    /// Whether standard input is a terminal (questions are only asked then).
    let inputIsTerminal: Bool
    /// Whether standard error is a terminal (progress bars go there).
    let errorIsTerminal: Bool
    /// Writes bytes to standard output (a pasted image).
    var outData: @Sendable (Data) -> Void = { FileHandle.standardOutput.write($0) }

    /// The process's standard streams.
    static let standard = Terminal(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) },
        readInput: { try FileHandle.standardInput.readToEnd() ?? Data() },
        readLine: { Swift.readLine() },
        inputIsTerminal: isatty(STDIN_FILENO) == 1,
        errorIsTerminal: isatty(STDERR_FILENO) == 1)

    /// Writes "handoff: error: …" to standard error.
    func error(_ message: String) {
        err("handoff: error: \(message)\n")
    }

    /// Writes "handoff: warning: …" to standard error.
    func warning(_ message: String) {
        err("handoff: warning: \(message)\n")
    }

    /// Writes "handoff: …" (a status line, not data) to standard error.
    func note(_ message: String) {
        err("handoff: \(message)\n")
    }
}
