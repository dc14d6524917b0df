import DBus

/// Tells the daemon which Unix user is behind a caller's bus connection. The daemon keeps users apart by this.
public protocol CallerIdentifying: Sendable {
    /// The Unix user id of the connection `sender` (a unique name such as `:1.7`).
    func unixUser(of sender: BusName) async throws -> UInt32
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
}
