import HandoffBusContract
import HandoffClient

extension DBusHandoffService {
    public func outboxPaths() async throws -> [OutboxPath] {
        try await call(HandoffBusAPI.Method.outboxPaths)
    }
}
