/// The connector used when this build of `handoff` has no way to reach a daemon: every connection attempt
/// fails with ``ServiceError/Code/unreachable`` and the given reason.
public struct UnavailableServiceConnector: HandoffServiceConnector {
    /// Why the daemon cannot be reached, shown to the user after "the handoff daemon is not reachable: ".
    public let reason: String

    /// Creates a connector that always fails with `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    /// Always throws ``ServiceError/Code/unreachable``.
    public func connect() async throws -> any HandoffService {
        throw ServiceError(.unreachable, "the handoff daemon is not reachable: \(reason)")
    }
}
