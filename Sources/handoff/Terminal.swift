import Foundation
import HandoffClient
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

/// Where a command's output goes and its input comes from: the process's standard streams, or captures in tests.
///
/// The CLI's one output layer for text: `out`, `err` and the lines built on them pass everything through
/// ``TerminalText/escaped(_:keeping:)``, keeping only newlines and tabs, so no string a peer or another user chose
/// (a device name, a title, a file name) can move the cursor, erase a line or reorder what is shown, whichever
/// command prints it. Data the user asked for as it is (a note's text, a received file, JSON) goes through
/// `outRaw` and `outData`, byte for byte, as `cat` would.
struct Terminal: Sendable {
    /// Writes to standard output, unescaped.
    private let writeOut: @Sendable (String) -> Void
    /// Writes to standard error, unescaped.
    private let writeErr: @Sendable (String) -> Void
    /// Reads all of standard input.
    let readInput: @Sendable () throws -> Data
    /// Standard input as a descriptor to read as it comes (`share -` streams it, never holding it whole).
    let openInput: @Sendable () throws -> OpenFile
    /// Reads one line of standard input (for interactive questions), nil at end of input.
    let readLine: @Sendable () -> String?
    /// Whether standard input is a terminal (questions are only asked then).
    let inputIsTerminal: Bool
    /// Whether standard error is a terminal (progress bars go there).
    let errorIsTerminal: Bool
    /// Writes bytes to standard output (a pasted image).
    var outData: @Sendable (Data) -> Void = { FileHandle.standardOutput.write($0) }

    init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
         readInput: @escaping @Sendable () throws -> Data, readLine: @escaping @Sendable () -> String?,
         inputIsTerminal: Bool, errorIsTerminal: Bool,
         outData: @escaping @Sendable (Data) -> Void = { FileHandle.standardOutput.write($0) },
         openInput: (@Sendable () throws -> OpenFile)? = nil) {
        self.writeOut = out
        self.writeErr = err
        self.readInput = readInput
        self.openInput = openInput ?? { try Self.pipe(feeding: readInput()) }
        self.readLine = readLine
        self.inputIsTerminal = inputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.outData = outData
    }

    /// Writes `text` to standard output, control and bidirectional characters other than `\n` and `\t` shown as
    /// `\u{…}`.
    func out(_ text: String) {
        writeOut(Self.shown(text))
    }

    /// Writes `text` to standard error, escaped as `out` does.
    func err(_ text: String) {
        writeErr(Self.shown(text))
    }

    /// Writes `text` to standard output as it is: data the user asked for (a note's text, a received file) or
    /// JSON (which escapes what it must itself).
    func outRaw(_ text: String) {
        writeOut(text)
    }

    /// Rewrites the current line of standard error (a progress bar): a carriage return, then `text` escaped.
    func rewriteLine(_ text: String) {
        writeErr("\r" + Self.shown(text))
    }

    /// What `out` and `err` write for `text`.
    static func shown(_ text: String) -> String {
        TerminalText.escaped(text, keeping: ["\n", "\t"])
    }

    /// The process's standard streams.
    static let standard = Terminal(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) },
        readInput: { try FileHandle.standardInput.readToEnd() ?? Data() },
        readLine: { Swift.readLine() },
        inputIsTerminal: isatty(STDIN_FILENO) == 1,
        errorIsTerminal: isatty(STDERR_FILENO) == 1,
        openInput: {
            let fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else { throw CLIError(.ioError, "cannot read standard input: \(String(cString: strerror(errno)))") }
            return OpenFile(fileDescriptor: fd)
        })

    /// The reading end of a socket pair that a thread fills with `data` and then closes (a captured input as a
    /// stream).
    static func pipe(feeding data: Data) throws -> OpenFile {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw CLIError(.ioError, "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        let writing = OpenFile(fileDescriptor: ends[1])
        DetachedThread.start {
            try? FileDescriptorIO.writeAll(writing.fileDescriptor, [UInt8](data))
            writing.close()
        }
        return OpenFile(fileDescriptor: ends[0])
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
}
