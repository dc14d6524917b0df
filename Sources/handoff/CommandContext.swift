import HandoffClient
import HandoffNotes

/// What every command runs with: the environment, the terminal and the way to reach the daemon.
struct CommandContext: Sendable {
    /// The process environment.
    var environment: [String: String]
    /// Standard streams.
    var terminal: Terminal
    /// Opens a connection to the daemon.
    var connector: any HandoffServiceConnector

    /// The note store for this environment.
    func store() throws -> NoteStore {
        try NoteStore(environment: environment)
    }

    /// Connects to the daemon; ``ServiceError`` (code `.unreachable`) maps to exit 69.
    func service() async throws -> any HandoffService {
        try await connector.connect()
    }
}
