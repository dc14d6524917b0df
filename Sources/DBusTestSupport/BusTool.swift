import Foundation

/// The outcome of running a command-line D-Bus client.
public struct ToolResult: Sendable {
    /// The exit status.
    public let status: Int32
    /// Everything written to standard output.
    public let output: String
    /// Everything written to standard error.
    public let error: String

    /// True for exit status 0.
    public var succeeded: Bool { status == 0 }
}

/// Runs the third-party clients (`busctl`, `gdbus`, `dbus-send`) against a ``PrivateBus``, without blocking
/// Swift's cooperative threads while they run.
extension PrivateBus {
    /// Runs `busctl --address=<bus> <arguments>`.
    public func busctl(_ arguments: [String]) async throws -> ToolResult {
        try await Self.run("/usr/bin/busctl", ["--address=\(address)"] + arguments)
    }

    /// Runs `gdbus <command> --address <bus> <arguments>`, e.g. `gdbus("introspect", ["--dest", name, …])`.
    public func gdbus(_ command: String, _ arguments: [String]) async throws -> ToolResult {
        try await Self.run("/usr/bin/gdbus", [command, "--address", address] + arguments)
    }

    /// Runs `dbus-send --bus=<bus> <arguments>`.
    public func dbusSend(_ arguments: [String]) async throws -> ToolResult {
        try await Self.run("/usr/bin/dbus-send", ["--bus=\(address)"] + arguments)
    }

    /// Runs a program to completion and collects its output.
    ///
    /// - Throws: ``PrivateBusError`` when the program is missing.
    public static func run(_ program: String, _ arguments: [String]) async throws -> ToolResult {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw PrivateBusError("\(program) not found; run scripts/deps.sh test")
        }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
                let output = Pipe()
                let error = Pipe()
                process.standardOutput = output
                process.standardError = error
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let group = DispatchGroup()
                nonisolated(unsafe) var errorData = Data()
                group.enter()
                DispatchQueue.global().async {
                    errorData = error.fileHandleForReading.readDataToEndOfFile()
                    group.leave()
                }
                let outputData = output.fileHandleForReading.readDataToEndOfFile()
                group.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: ToolResult(
                        status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                        error: String(decoding: errorData, as: UTF8.self)))
            }
        }
    }
}
