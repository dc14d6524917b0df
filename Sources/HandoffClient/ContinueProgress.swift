/// Progress of `continueActivity`, reported as it happens.
///
/// JSON: `{"phase":"transferring","receivedBytes":2048,"totalBytes":8192}`.
public struct ContinueProgress: Sendable, Equatable, Codable {
    /// The step a continuation is in.
    public enum Phase: String, Sendable, Codable, CaseIterable {
        /// Asking the device (`willContinue`).
        case requesting
        /// Receiving the payload.
        case transferring
        /// All bytes received; the payload is being checked and decoded.
        case finishing
    }

    /// The current step.
    public var phase: Phase
    /// Payload bytes received so far.
    public var receivedBytes: Int
    /// The payload size, when known.
    public var totalBytes: Int?

    /// Creates a progress report.
    public init(phase: Phase, receivedBytes: Int, totalBytes: Int?) {
        self.phase = phase
        self.receivedBytes = receivedBytes
        self.totalBytes = totalBytes
    }

    /// The completed fraction in 0…1, when the total is known and not zero.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(totalBytes))
    }
}
