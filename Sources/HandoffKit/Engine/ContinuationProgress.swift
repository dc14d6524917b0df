/// How far a continuation has got, as `HandoffEngine.continueActivity(_:progress:)` reports it: payload bytes
/// received of the payload's length, and the link they travel on. Only the engine makes one.
public struct ContinuationProgress: Sendable, Equatable {
    /// Payload bytes received so far: the sealed stream's payload part received, in proportion to the plaintext
    /// (each record is sealed with a 16-byte tag), so approximate until the last byte.
    public let receivedBytes: Int
    /// The payload's length (the binary plist), from the transfer's header.
    public let totalBytes: Int
    /// The link the bytes travel on: an L2CAP channel, or GATT with the reason when it stood in for one.
    public let transport: LinkTransport
}
