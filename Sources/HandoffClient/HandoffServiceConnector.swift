/// Opens a connection to the handoff daemon.
///
/// The CLI is given one connector at start-up; commands that need the daemon call ``connect()`` and map
/// ``ServiceError/Code/unreachable`` to the daemon-unreachable exit code.
public protocol HandoffServiceConnector: Sendable {
    /// Connects, or throws ``ServiceError`` with code ``ServiceError/Code/unreachable`` when no daemon answers.
    func connect() async throws -> any HandoffService
}
