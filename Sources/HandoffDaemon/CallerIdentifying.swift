import DBus
import FoundationEssentials

/// Tells the daemon which Unix user is behind a caller's bus connection. The daemon keeps users apart by this.
public protocol CallerIdentifying: Sendable {
    /// The Unix user id of the connection `sender` (a unique name such as `:1.7`).
    func unixUser(of sender: BusName) async throws -> UInt32
    /// The name of the process behind `sender` (its `/proc/PID/comm`), or nil when it cannot be told. It names
    /// the app that offered an activity in Status; the process chose it, so it is text to show escaped, not trust.
    func processName(of sender: BusName) async -> String?
}

extension CallerIdentifying {
    /// Unknown, by default.
    public func processName(of sender: BusName) async -> String? { nil }
}

/// The real answer: asks the bus (`GetConnectionUnixUser`), which learned it from the socket's credentials.
public struct BusCallerIdentity: CallerIdentifying {
    /// The daemon's connection.
    public let connection: Connection

    /// Asks `connection`'s bus.
    public init(connection: Connection) {
        self.connection = connection
    }

    /// The caller's uid, from the bus.
    public func unixUser(of sender: BusName) async throws -> UInt32 {
        try await connection.unixUser(ofSender: sender)
    }

    /// The caller's process name: the bus says its pid (`GetConnectionUnixProcessID`, from the socket's
    /// credentials), `/proc/PID/comm` its name (at most 15 bytes, set by the kernel from the program's file name).
    public func processName(of sender: BusName) async -> String? {
        guard let pid = try? await connection.unixProcessID(ofSender: sender),
              let data = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/comm")) else { return nil }
        let name = String(decoding: data.prefix(64), as: UTF8.self)
            .unicodeScalars.filter { $0.properties.generalCategory != .control }
        return name.isEmpty ? nil : String(String.UnicodeScalarView(name))
    }
}
