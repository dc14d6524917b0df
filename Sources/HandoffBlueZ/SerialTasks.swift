/// Operations that run one at a time, in the order they were enqueued, for an actor whose methods are reentrant:
/// each waits for the one before it to end, whether that one succeeded or not.
struct SerialTasks: Sendable {
    private var last: Task<Void, Never>?

    /// Starts `body` once every operation enqueued before it has ended; its task gives `body`'s outcome.
    mutating func enqueue(_ body: @escaping @Sendable () async throws -> Void) -> Task<Result<Void, any Error>, Never> {
        let previous = last
        let result = Task<Result<Void, any Error>, Never> {
            await previous?.value
            do {
                try await body()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        last = Task { _ = await result.value }
        return result
    }
}
