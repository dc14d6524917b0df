import DBus

/// Questions asked of bluetoothd directly, for the moments when the mirror may lag: it applies PropertiesChanged
/// on its own task, so a method reply can overtake the signal that preceded it, and a `Connected` change that
/// races an InterfacesAdded can be missed.
extension Device1 {
    /// A boolean `Device1` property (`Connected`, `ServicesResolved`) as bluetoothd says now, by one
    /// `Properties.Get`; nil when the device or bluetoothd is gone, or bluetoothd does not answer within 5 s.
    public func flagNow(_ name: String) async -> Bool? {
        try? await bluez.getProperty(path, BlueZNames.device1, name, timeout: .seconds(5)).get(Bool.self)
    }

    /// `Connected` as bluetoothd says now (see ``flagNow(_:)``).
    public func connectedNow() async -> Bool? {
        await flagNow("Connected")
    }

    /// The `Connected` values bluetoothd announces for this device, read from the PropertiesChanged signals of its
    /// own path. The match rule is in place when this returns, so a connection made afterwards is seen, whatever
    /// the mirror does. The subscription ends when the sequence is dropped.
    /// - Throws: ``BlueZError`` `.bus` when the match rule cannot be added.
    public func connectionChanges() async throws(BlueZError) -> ConnectionChanges {
        do {
            return ConnectionChanges(messages: try await bluez.connection.signals(matching: MatchRule.signal(
                interface: BlueZNames.properties, member: "PropertiesChanged",
                path: path)))
        } catch {
            throw BlueZError(.bus, "cannot watch \(path): \(error.message)", cause: error)
        }
    }
}

/// The `Connected` values of one device's PropertiesChanged signals (``Device1/connectionChanges()``), in order.
public struct ConnectionChanges: AsyncSequence, Sendable {
    public typealias Element = Bool
    let messages: AsyncStream<Message>

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(messages: messages.makeAsyncIterator())
    }

    /// Skips the signals of other interfaces and those that do not carry `Connected`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var messages: AsyncStream<Message>.AsyncIterator

        public mutating func next() async -> Bool? {
            while let message = await messages.next() {
                guard let change = PropertiesChange(message), change.interface == BlueZNames.device1,
                      let connected = try? change.changed["Connected"]?.get(Bool.self) else { continue }
                return connected
            }
            return nil
        }
    }
}

extension Adapter1 {
    /// `AddressType` (`public` or `random`) as bluetoothd says now; the mirror's typed properties do not carry it.
    public func addressTypeNow() async -> String? {
        try? await bluez.getProperty(path, BlueZNames.adapter1, "AddressType", timeout: .seconds(5)).get(String.self)
    }
}
