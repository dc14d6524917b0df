import DBus
import Foundation

/// A private `dbus-daemon` for tests: started from a generated configuration in a fresh temporary directory,
/// stopped (killed, and its directory removed) by ``stop()`` or when the value is released.
///
/// The daemon runs under a tiny shell guard that holds the read end of a pipe from this process: when the test
/// process exits for any reason, even a crash, the pipe closes and the guard kills the daemon, so no bus is left
/// behind.
///
/// The default policy allows everything. Pass `extraPolicy` to add `<policy>` elements, e.g. a deny rule to test
/// refusals:
///
/// ```swift
/// let bus = try PrivateBus(extraPolicy: #"<policy context="default"><deny own="org.handoff.Forbidden"/></policy>"#)
/// let connection = try bus.connect()
/// ```
public final class PrivateBus: Sendable {
    /// The bus address, e.g. `unix:path=/tmp/…/bus,guid=…`.
    public let address: String
    private let process: Process
    private let lifeline: FileHandle
    private let directory: URL

    /// Starts the daemon and waits until it prints its address.
    ///
    /// - Throws: ``PrivateBusError`` when `dbus-daemon` is missing (install the `dbus-daemon` package, which
    ///   `scripts/deps.sh test` does) or does not start.
    public init(extraPolicy: String = "") throws {
        let daemon = "/usr/bin/dbus-daemon"
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw PrivateBusError("dbus-daemon not found at \(daemon); run scripts/deps.sh test")
        }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("handoff-bus-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try Self.configuration(socket: directory.appendingPathComponent("bus").path, extraPolicy: extraPolicy)
            .write(to: config, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", #""$0" "$@" <&- & daemon=$!; read _ignored; kill -9 "$daemon""#,
            daemon, "--config-file=\(config.path)", "--nofork", "--nopidfile", "--print-address=1",
        ]
        let output = Pipe()
        // A socket pair rather than a pipe: both ends close-on-exec from birth, so no other child (a second bus,
        // busctl…) inherits the write end
        // and keeps this guard waiting; the guard gets the read end as its standard input.
        var ends: [Int32] = [0, 0]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else {
            throw PrivateBusError("socketpair failed: errno \(errno)")
        }
        let lifeline = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        let guardInput = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        process.standardInput = guardInput
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        try? guardInput.close()
        self.process = process
        self.lifeline = lifeline

        var collected = Data()
        while !collected.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            collected.append(chunk)
        }
        let line = String(decoding: collected, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty else {
            try? lifeline.close()
            process.waitUntilExit()
            throw PrivateBusError("dbus-daemon exited without printing an address")
        }
        address = line
    }

    /// The bus configuration: a session-type bus listening on one socket, everything allowed.
    public static func configuration(socket: String, extraPolicy: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          \(extraPolicy)
        </busconfig>
        """
    }

    /// Opens a new connection to this bus.
    public func connect() throws -> Connection {
        try Connection(.address(address))
    }

    /// Stops the daemon (closing the lifeline makes its guard SIGKILL it) and removes its directory.
    /// Idempotent. The guard does not `wait` for the daemon: it inherits a signal mask with SIGCHLD blocked from
    /// the spawning thread, and a shell `wait` would then never return.
    public func stop() {
        try? lifeline.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit {
        stop()
    }
}

/// A private bus could not be started.
public struct PrivateBusError: Error, CustomStringConvertible {
    /// What went wrong.
    public let message: String

    /// Creates the error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
