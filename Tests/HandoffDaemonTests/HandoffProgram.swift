import Foundation

/// The built `handoff` executable, run as a subprocess against one machine's API bus, with its own notes folder.
struct HandoffProgram {
    struct Result {
        var status: Int32
        var output: String
        var error: String
        /// Standard output as bytes (the browser host's framed replies).
        var outputData = Data()
    }

    struct NotBuilt: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is missing; run 'swift build --product handoff' first" }
    }

    let executable: String
    let home: URL
    let busAddress: String
    /// Variables added to (or replacing) the program's environment.
    var extraEnvironment: [String: String] = [:]

    /// The binary in this package's .build/debug (or `$HANDOFF_BINARY`), a fresh home, the daemon's bus.
    init(busAddress: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = ProcessInfo.processInfo.environment["HANDOFF_BINARY"]
            ?? root.appendingPathComponent(".build/debug/handoff").path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw NotBuilt(path: path) }
        executable = path
        home = FileManager.default.temporaryDirectory.appendingPathComponent("handoff-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        self.busAddress = busAddress
    }

    var environment: [String: String] {
        ["HOME": home.path, "XDG_DATA_HOME": home.path, "HANDOFF_BUS_ADDRESS": busAddress, "LANG": "C.UTF-8",
         "PATH": "/usr/bin:/bin"].merging(extraEnvironment) { $1 }
    }

    var notesDirectory: URL { home.appendingPathComponent("handoff/notes") }

    /// Runs `handoff arguments` with `input` on standard input and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String = "") async throws -> Result {
        try await run(arguments, inputData: Data(input.utf8))
    }

    /// Runs `handoff arguments` with `inputData` written into its standard input (a pipe) from a Dispatch thread,
    /// as a producer in a shell pipeline would (a program that stops reading makes the writer stop), and waits.
    @discardableResult
    func run(_ arguments: [String], inputData: Data) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = stdin.fileHandleForWriting
        DispatchQueue.global().async {
            try? writer.write(contentsOf: inputData)   // fails with EPIPE once the program stopped reading
            try? writer.close()
        }
        // Read both pipes on Dispatch threads, never on the cooperative pool (the daemons under test need it),
        // so a chatty child never blocks on a full pipe.
        let errors = Recorder<Data>()
        let (out, err) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
            DispatchQueue.global().async {
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async {
                    errors.append(stderr.fileHandleForReading.readDataToEndOfFile())
                    group.leave()
                }
                let out = stdout.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(returning: (out, errors.all.first ?? Data()))
            }
        }
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                      error: String(decoding: err, as: UTF8.self), outputData: out)
    }

    /// Starts `handoff arguments` and returns the process and a handle on its standard output.
    func start(_ arguments: [String]) throws -> (Process, FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, stdout.fileHandleForReading)
    }

    func remove() {
        try? FileManager.default.removeItem(at: home)
    }
}
