import Foundation

/// Tier 1's bus: `scripts/bluezoo-bus.sh` (the vm branch's launcher) serving a private system-like bus with
/// bluezoo's hci0 and hci1 powered, until `stop()` sends it SIGTERM.
///
/// A missing launcher, bluezoo or dbus-daemon throws `BluezooBus.Missing` with the launcher's own explanation, so
/// the test FAILS with that message; it never skips.
final class BluezooBus: @unchecked Sendable {
    /// Why tier 1 could not start.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The bus address (`unix:path=…`).
    let address: String
    private let process: Process
    private let lock = NSLock()
    private var stopped = false

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Starts the launcher and waits for its READY line.
    init() throws {
        let script = Self.root.appendingPathComponent("scripts/bluezoo-bus.sh").path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw Missing(description: "tier 1 needs \(script) (merge the vm branch); it is missing")
        }
        let process = Process()
        // XCTest runs children with SIGTERM blocked; the launcher stops on SIGTERM, so exec it with an empty mask.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])",
            "/bin/bash", script, "--scan-interval", "1", "--timeout", "40",
        ] + (ProcessInfo.processInfo.environment["HANDOFF_BLUEZOO_DEBUG"] == "1" ? ["--verbose", "--keep-logs"] : [])
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("READY\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let address = text.split(separator: "\n").first { $0.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") }
            .map { String($0.dropFirst("DBUS_SYSTEM_BUS_ADDRESS=".count)) }
        guard let address, text.contains("READY") else {
            process.terminate()
            process.waitUntilExit()
            let reason = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw Missing(description: "bluezoo (tier 1) did not start; run scripts/deps.sh test. Launcher said: \(reason)")
        }
        self.address = address
        self.process = process
        if let log = text.split(separator: "\n").first(where: { $0.hasPrefix("HANDOFF_BLUEZOO_LOG=") }) {
            print("bluezoo: \(log)")
        }
    }

    /// Stops bluezoo and the bus (SIGTERM to the launcher) and waits. Idempotent.
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    deinit { stop() }
}
