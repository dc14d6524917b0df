import HandoffKit

/// One simulated device: its radio, started engine, recording delegate and trust state.
public struct SimulatedDevice: Sendable {
    /// Its name.
    public let name: String
    /// Its in-memory radio.
    public let radio: InMemoryRadio
    /// Its engine (started).
    public let engine: HandoffEngine
    /// Its receiving-side delegate (the engine holds it weakly; this keeps it alive).
    public let delegate: RecordingContinuationDelegate
    /// Its trust state at creation.
    public let store: TrustStore

    /// Bundles the parts of a simulated device.
    public init(name: String, radio: InMemoryRadio, engine: HandoffEngine, delegate: RecordingContinuationDelegate,
                store: TrustStore) {
        self.name = name
        self.radio = radio
        self.engine = engine
        self.delegate = delegate
        self.store = store
    }
}
