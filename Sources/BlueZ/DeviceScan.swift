/// A running discovery: an `AsyncSequence` of ``DeviceEvent``s. Discovery stops when iteration ends, the task is
/// cancelled, or ``stop()`` is called.
public struct DeviceScan: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = DeviceEvent
    let events: AsyncStream<DeviceEvent>
    let finish: @Sendable () -> Void

    /// Stops discovery (StopDiscovery) and ends the sequence.
    public func stop() { finish() }

    /// The iterator.
    public func makeAsyncIterator() -> AsyncStream<DeviceEvent>.Iterator { events.makeAsyncIterator() }
}
