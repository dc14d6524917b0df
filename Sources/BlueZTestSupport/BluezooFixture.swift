import BlueZ
import DBus
import Foundation
import HandoffShared

/// Tier 1: bluezoo (the BlueZ mock from PyPI) with hci0 and hci1 on a private system-like bus, started through
/// the repository's launcher `scripts/bluezoo-bus.sh` in its command mode. The command only reports the bus
/// address and then waits, so the fixture may kill bluezoo and start a replacement on the same bus (the
/// launcher tolerates that in command mode), which is how the resilience test makes org.bluez vanish and return.
///
/// A missing launcher, bluezoo or dbus-daemon is a test failure with the launcher's message, never a skip.
///
/// ```swift
/// let zoo = try BluezooFixture()            // bluezoo on a private bus, hci0 and hci1 powered
/// let bluez = try await zoo.connect()
/// defer { zoo.stop() }
/// ```
///
/// `@unchecked Sendable` is true: the stored `let`s never change after `init`, and what does change (the
/// replacement bluezoo, whether the fixture has stopped) is behind `state`'s lock. `Process` is not `Sendable`,
/// which is why the class cannot say `Sendable` plainly; it is only started, waited for and signalled.
public final class BluezooFixture: @unchecked Sendable {
    /// hci0's address, as btvirt gives it in the VM tier.
    public static let hci0Address = "00:AA:01:00:00:00"
    /// hci1's address, as btvirt gives it in the VM tier.
    public static let hci1Address = "00:AA:01:01:00:01"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The bus address (`unix:path=…`), for `DBUS_SYSTEM_BUS_ADDRESS` or `Connection.Bus.address`.
    public let address: String
    private let launcher: Process
    private let commandPID: pid_t
    private let state = Locked(State())

    private struct State {
        /// The bluezoo ``startBluezoo()`` started, if any.
        var replacement: Process?
        var stopped = false
    }

    /// Foundation's Process hands children the test runner's signal mask, in which SIGTERM is blocked; the
    /// launcher and bluezoo stop on SIGTERM, so they are started through this tiny exec wrapper that clears it.
    static let unblockSignals = [
        "-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])",
    ]

    /// Why tier 1 could not start, in the launcher's words.
    public struct SetupError: Error, CustomStringConvertible {
        /// What went wrong and how to fix it.
        public let description: String
    }

    /// Starts the launcher and waits until bluezoo owns org.bluez with both adapters powered.
    /// - Throws: ``SetupError`` when the launcher, bluezoo or dbus-daemon is missing or does not start.
    public init() throws {
        let script = Self.root.appendingPathComponent("scripts/bluezoo-bus.sh").path
        guard FileManager.default.isExecutableFile(atPath: script) else {
            throw SetupError(description: "tier 1 needs \(script) (from the vm branch); it is missing")
        }
        let launcher = Process()
        launcher.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        launcher.arguments = Self.unblockSignals + [
            "/bin/bash", script, "--timeout", "40", "--", "/bin/bash", "-c",
            "echo \"DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS\"; echo \"PID=$$\"; echo READY; exec sleep 3600",
        ]
        let output = Pipe()
        let errors = Pipe()
        launcher.standardOutput = output
        launcher.standardError = errors
        launcher.standardInput = FileHandle.nullDevice
        try launcher.run()
        var text = ""
        while !text.contains("READY\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        var address: String?
        var pid: pid_t?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("DBUS_SYSTEM_BUS_ADDRESS=") { address = String(line.dropFirst(24)) }
            if line.hasPrefix("PID=") { pid = pid_t(line.dropFirst(4)) }
        }
        guard let address, let pid, text.contains("READY") else {
            launcher.terminate()
            let reason = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
            throw SetupError(description: "bluezoo tier could not start (scripts/deps.sh test installs it): \(reason)")
        }
        self.address = address
        self.launcher = launcher
        self.commandPID = pid
    }

    /// Connects the BlueZ layer to the fixture's bus.
    public func connect(log: BlueZLog? = nil) async throws -> BlueZ {
        try await BlueZ.connect(bus: .address(address), log: log)
    }

    /// Kills whichever bluezoo owns org.bluez (SIGKILL: a crash, nothing unregisters).
    public func killBluezoo() async throws {
        let probe = try Connection(.address(address))
        defer { probe.close() }
        let pid = try await probe.unixProcessID(ofSender: "org.bluez")
        kill(pid_t(pid), SIGKILL)
    }

    /// Plugs in an adapter while bluezoo runs: `hci<index>` with `address`, powered (bluezoo's
    /// `org.bluezoo.Manager1.AddAdapter`; the launcher runs it with `--auto-enable`). The same address may come
    /// back under another index, as a USB dongle does.
    public func addAdapter(index: UInt8, address: String) async throws {
        try await bluezooManager { manager in try await manager.call("AddAdapter", .byte(index), .string(address)) }
    }

    /// Unplugs `hci<index>` while bluezoo runs: its object, its devices and what was registered on it go away
    /// (`org.bluezoo.Manager1.RemoveAdapter`).
    public func removeAdapter(index: UInt8) async throws {
        try await bluezooManager { manager in try await manager.call("RemoveAdapter", .byte(index)) }
    }

    private func bluezooManager(_ body: (Proxy) async throws -> Void) async throws {
        let connection = try Connection(.address(address))
        defer { connection.close() }
        try await body(Proxy(connection: connection, destination: "org.bluez", path: "/org/bluezoo",
                             interface: "org.bluezoo.Manager1"))
    }

    /// Starts a fresh bluezoo on the same bus with the launcher's settings.
    public func startBluezoo() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = Self.unblockSignals + [
            Self.root.appendingPathComponent(".venv/bin/python").path,
            Self.root.appendingPathComponent("scripts/bluezoo/run_bluezoo.py").path, "--scan-interval", "1",
            "--auto-enable", "-a", Self.hci0Address, "-a", Self.hci1Address,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        state.withLock { $0.replacement = process }
    }

    /// Runs `body` with a BlueZ connection to a fresh bluezoo, then closes the connection and stops bluezoo,
    /// whether `body` returns or throws.
    public static func withBlueZ<R>(_ body: (BlueZ) async throws -> R) async throws -> R {
        let zoo = try BluezooFixture()
        defer { zoo.stop() }
        let bluez = try await zoo.connect()
        do {
            let result = try await body(bluez)
            await bluez.close()
            return result
        } catch {
            await bluez.close()
            throw error
        }
    }

    /// Stops the replacement bluezoo (if any), then ends the launcher's command so it tears the bus down.
    public func stop() {
        let (first, replacement) = state.withLock { state -> (Bool, Process?) in
            defer { state.stopped = true }
            return (!state.stopped, state.replacement)
        }
        guard first else { return }
        if let replacement, replacement.isRunning {
            replacement.terminate()
            replacement.waitUntilExit()
        }
        kill(commandPID, SIGTERM)
        launcher.waitUntilExit()
    }

    deinit { stop() }
}
