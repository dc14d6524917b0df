import Foundation
import Testing

/// Runs a shell script and returns its standard output, standard error and status.
enum Shell {
    struct Result {
        var output: String
        var error: String
        var status: Int32
    }

    static func run(_ shell: String, script: String, arguments: [String] = []) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            throw ShellMissing(shell: shell)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self),
            status: process.terminationStatus)
    }

    struct ShellMissing: Error, CustomStringConvertible {
        var shell: String
        var description: String { "\(shell) is required by this test; run scripts/deps.sh test" }
    }
}
