import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's standard streams.
struct Terminal: Sendable {
    /// Writes to standard output.
    func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes to standard error.
    func err(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

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

    /// Whether standard input is a terminal.
    var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard error is a terminal (progress bars go there).
    var errorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Reads all of standard input.
    func readInput() throws -> Data {
        try FileHandle.standardInput.readToEnd() ?? Data()
    }
}
