import Foundation
import Synchronization

/// A desktop program (`wl-copy`, `xclip`, `xdg-open`, `git`) found on `PATH` when it is needed, and run with an
/// argument vector: nothing handoff passes to it is ever read by a shell.
public struct Tool: Sendable, Equatable {
    /// The name looked up (`wl-paste`).
    public let name: String
    /// Its absolute path.
    public let path: String

    /// What one run produced.
    public struct Result: Sendable {
        /// The exit status (128 + N when killed by signal N).
        public var status: Int32
        /// Everything written to standard output (empty when it was discarded).
        public var output: Data
        /// Standard error as text, trimmed.
        public var errorText: String
    }

    /// The first executable `name` in `environment["PATH"]`, or nil.
    public static func find(_ name: String, in environment: [String: String]) -> Tool? {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for directory in directories where directory.hasPrefix("/") {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return Tool(name: name, path: String(path)) }
        }
        return nil
    }

    /// Runs the tool with `arguments`, writing `input` to its standard input (else it reads /dev/null).
    /// `keepsOutput` false sends standard output and error to /dev/null: programs such as `wl-copy` and `xclip -i`
    /// leave a child behind that serves the clipboard and would hold a pipe open for ever.
    public func run(_ arguments: [String], input: Data? = nil, environment: [String: String],
                    keepsOutput: Bool = true) async throws(DesktopError) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        let stdout = keepsOutput ? Pipe() : nil
        let stderr = keepsOutput ? Pipe() : nil
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw DesktopError(.toolFailed, "cannot start \(path): \(error.localizedDescription)")
        }
        let result: Result = await withCheckedContinuation { continuation in
            // Reading and writing block; they run on their own threads so a large image cannot deadlock the pipes.
            DispatchQueue.global().async {
                let group = DispatchGroup()
                let output = Drained(stdout, group: group), errors = Drained(stderr, group: group)
                if let stdin, let input {
                    // A tool that exits without reading everything must not kill us with SIGPIPE.
                    signal(SIGPIPE, SIG_IGN)
                    try? stdin.fileHandleForWriting.write(contentsOf: input)
                    try? stdin.fileHandleForWriting.close()
                }
                group.wait()
                process.waitUntilExit()
                let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus
                    : process.terminationStatus
                let errorText = String(decoding: errors.data, as: UTF8.self)
                continuation.resume(returning: Result(
                    status: status, output: output.data,
                    errorText: errorText.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        return result
    }

    /// Runs the tool and returns its standard output, or throws with its standard error when it fails.
    public func output(_ arguments: [String], input: Data? = nil, environment: [String: String])
        async throws(DesktopError) -> Data {
        let result = try await run(arguments, input: input, environment: environment)
        guard result.status == 0 else {
            throw DesktopError(.toolFailed, "\(name) failed (exit \(result.status))"
                + (result.errorText.isEmpty ? "" : ": \(result.errorText)"))
        }
        return result.output
    }
}

/// Everything a pipe delivers until end of file, read on a thread of its own.
private final class Drained: Sendable {
    private let received = Mutex(Data())

    init(_ pipe: Pipe?, group: DispatchGroup) {
        guard let pipe else { return }
        DispatchQueue.global().async(group: group) { [self] in
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            received.withLock { $0 = data }
        }
    }

    /// What was read (complete once the group is done).
    var data: Data { received.withLock { $0 } }
}
