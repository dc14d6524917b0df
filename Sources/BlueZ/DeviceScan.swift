/// A running discovery: an `AsyncSequence` of ``DeviceEvent``s. Discovery stops when iteration ends, the task is
/// cancelled, or ``stop()`` is called.
public struct DeviceScan: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = DeviceEvent
    let events: AsyncStream<DeviceEvent>
    let finish: @Sendable () -> Void
    let stopNow: @Sendable () async -> Void
    let restart: @Sendable () async throws(BlueZError) -> Void

    /// Ends the sequence; StopDiscovery follows in the background.
    public func stop() { finish() }

    /// Ends the sequence and returns once StopDiscovery is done (so a new scan cannot be stopped by it).
    public func stopAndWait() async { await stopNow() }

    /// StopDiscovery, then SetDiscoveryFilter and StartDiscovery again (bluetoothd drops a client's filter when
    /// it stops). The sequence goes on. Useful with btvirt, which reports an advertiser once per scan start.
    public func restartDiscovery() async throws(BlueZError) { try await restart() }

    /// The iterator.
    public func makeAsyncIterator() -> AsyncStream<DeviceEvent>.Iterator { events.makeAsyncIterator() }
}
