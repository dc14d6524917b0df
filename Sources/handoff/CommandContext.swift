import Foundation
import HandoffClient
import HandoffNotes
import HandoffShared

/// What every command runs with: the environment, the terminal, the way to reach the daemon and the time.
struct CommandContext: Sendable {
    /// The process environment.
    var environment: [String: String]
    /// Standard streams.
    var terminal: Terminal
    /// Opens a connection to the daemon.
    var connector: any HandoffServiceConnector
    /// Where waits (polling the outbox) read time.
    var clock: any MonotonicClock = SystemClock()
    /// The wall clock, for a new note's default name and a restored note's arrival.
    var date: @Sendable () -> Date = { Date() }

    /// The note store for this environment.
    func store() throws -> NoteStore {
        try NoteStore(environment: environment)
    }

    /// Connects to the daemon; ``ServiceError`` (code `.unreachable`) maps to exit 69.
    func service() async throws -> any HandoffService {
        try await connector.connect()
    }
}
