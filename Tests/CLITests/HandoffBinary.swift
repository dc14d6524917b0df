import Foundation

/// Runs the built `handoff` executable as a subprocess, in a private XDG data directory.
struct HandoffBinary {
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "the handoff executable was not found (searched \(searched.joined(separator: ", "))); "
                + "run 'swift build --product handoff' first"
        }
    }

    let executable: String
    let home: String

    /// Finds the binary next to the test runner in the build products directory (or at `$HANDOFF_BINARY`) and
    /// makes a fresh home directory.
    init() throws {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["HANDOFF_BINARY"] { candidates.append(explicit) }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("handoff").path)
            directory = directory.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/handoff").path)
        guard let found = candidates.first(where: { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isExecutableFile(atPath: path)
        }) else {
            throw NotBuilt(searched: candidates)
        }
        executable = found
        var template = Array((NSTemporaryDirectory() + "/handoff-cli-tests-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        home = String(cString: made)
    }

    /// The notes directory the binary uses in these tests.
    var notesDirectory: String { home + "/data/handoff/notes" }

    /// Runs `handoff` with arguments, standard input and extra environment.
    @discardableResult
    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> Result {
        try run(arguments, inputData: Data(input.utf8), environment: environment)
    }

    /// Runs `handoff` with raw bytes on standard input.
    @discardableResult
    func run(_ arguments: [String], inputData: Data, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ["HOME": home, "XDG_DATA_HOME": home + "/data", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        env.merge(environment) { $1 }
        process.environment = env
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(inputData)
        try stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            error: String(decoding: err, as: UTF8.self))
    }

    func removeHome() {
        try? FileManager.default.removeItem(atPath: home)
    }
}
