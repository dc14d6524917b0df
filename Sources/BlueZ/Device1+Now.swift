import DBus

/// Questions asked of bluetoothd directly, for the moments when the mirror may lag: it applies PropertiesChanged
/// on its own task, so a method reply can overtake the signal that preceded it, and a `Connected` change that
/// races an InterfacesAdded can be missed.
extension Device1 {
    /// A boolean `Device1` property (`Connected`, `ServicesResolved`) as bluetoothd says now, by one
    /// `Properties.Get`; nil when the device or bluetoothd is gone, or bluetoothd does not answer within 5 s.
    public func flagNow(_ name: MemberName) async -> Bool? {
        try? await bluez.property(path, BlueZNames.device1, name, as: Bool.self, timeout: .seconds(5))
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
            return ConnectionChanges(changes: try await bluez.proxy(path, BlueZNames.device1).propertyChanges())
        } catch {
            throw BlueZError(.bus, "cannot watch \(path): \(error.message)", cause: error)
        }
    }
}

/// The `Connected` values of one device's PropertiesChanged signals (``Device1/connectionChanges()``), in order.
public struct ConnectionChanges: AsyncSequence, Sendable {
    public typealias Element = Bool
    let changes: AsyncStream<PropertiesChange>

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(changes: changes.makeAsyncIterator())
    }

    /// Skips the changes that do not carry `Connected`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var changes: AsyncStream<PropertiesChange>.AsyncIterator

        public mutating func next() async -> Bool? {
            while let change = await changes.next() {
                if let connected = try? change.changed["Connected"]?.get(Bool.self) { return connected }
            }
            return nil
        }
    }
}

extension Adapter1 {
    /// `AddressType` (`public` or `random`) as bluetoothd says now; the mirror's typed properties do not carry it.
    public func addressTypeNow() async -> String? {
        try? await bluez.property(path, BlueZNames.adapter1, "AddressType", as: String.self, timeout: .seconds(5))
    }
}
