import DBus
import FoundationEssentials

/// A characteristic of a connected remote device (`org.bluez.GattCharacteristic1`, client side).
public struct GattCharacteristic1: Sendable, Hashable {
    /// The object path, e.g. `/org/bluez/hci1/dev_…/service0001/char0002`.
    public let path: ObjectPath
    let bluez: BlueZ

    /// Two handles are equal when they name the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.path == rhs.path }
    /// Hashes the path.
    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    /// The kind of a write.
    public struct WriteType: RawRepresentable, Sendable, Hashable {
        /// The `type` option string.
        public let rawValue: String
        /// Wraps a type string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Write Request: acknowledged; up to 512 bytes (long writes are split by bluetoothd).
        public static let request = WriteType(rawValue: "request")
        /// Write Command: unacknowledged; at most MTU − 3 bytes.
        public static let command = WriteType(rawValue: "command")
        /// Reliable (prepared) write.
        public static let reliable = WriteType(rawValue: "reliable")
    }

    /// Reads the value; bluetoothd performs the long read (Read Blob) itself, up to 512 bytes.
    public func read(offset: Int = 0) async throws(BlueZError) -> Data {
        var options: [String: Variant] = [:]
        if offset > 0 { options["offset"] = Variant(UInt16(clamping: offset)) }
        let reply = try await bluez.call(path, BlueZNames.gattCharacteristic1, "ReadValue", [options.dbusValue])
        guard let first = reply.first, let bytes = try? [UInt8](dbusValue: first) else {
            throw BlueZError(.malformedReply, "ReadValue on \(path) did not return bytes")
        }
        return Data(bytes)
    }

    /// Writes `value` (at most 512 bytes; use ``writeChunked(_:type:)`` for more).
    public func write(_ value: Data, type: WriteType = .request) async throws(BlueZError) {
        guard value.count <= 512 else {
            throw BlueZError(.invalidInput, "a GATT value holds at most 512 bytes, not \(value.count)")
        }
        let options: [String: Variant] = ["type": Variant(type.rawValue)]
        _ = try await bluez.call(path, BlueZNames.gattCharacteristic1, "WriteValue",
                                 [.bytes([UInt8](value)), options.dbusValue])
    }

    /// The negotiated ATT MTU (`MTU`, BlueZ 5.62+), read fresh from bluetoothd.
    public func mtu() async throws(BlueZError) -> Int {
        Int(try await bluez.property(path, BlueZNames.gattCharacteristic1, "MTU", as: UInt16.self))
    }

    /// Subscribes (StartNotify) and delivers the notified values as bluetoothd reports them in PropertiesChanged.
    /// Fine for occasional notifications; for streams use ``acquireNotifications()``, because bluetoothd may
    /// coalesce rapid changes of `Value`. Unsubscribes (StopNotify) when
    /// iteration ends or the task is cancelled. The signal subscription is in place before StartNotify.
    public func notifications() async throws(BlueZError) -> AsyncStream<Data> {
        let changes: AsyncStream<PropertiesChange>
        do {
            changes = try await bluez.proxy(path, BlueZNames.gattCharacteristic1).propertyChanges()
        } catch {
            throw BlueZError(.bus, "cannot subscribe to \(path): \(error.message)", cause: error)
        }
        let path = self.path
        let (values, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .unbounded)
        let pump = Task {
            for await change in changes {
                if let bytes = try? change.changed["Value"]?.get([UInt8].self) { continuation.yield(Data(bytes)) }
            }
            continuation.finish()
        }
        let bluez = self.bluez
        continuation.onTermination = { _ in
            pump.cancel()
            Task { _ = try? await bluez.call(path, BlueZNames.gattCharacteristic1, "StopNotify") }
        }
        do {
            _ = try await bluez.call(path, BlueZNames.gattCharacteristic1, "StartNotify")
        } catch {
            continuation.finish()
            throw error
        }
        return values
    }
}

extension GattCharacteristic1 {
    /// Writes a value of any size as ``ChunkedValue`` chunks, each one ATT PDU at the negotiated MTU.
    /// - Returns: how many writes it took.
    @discardableResult
    public func writeChunked(_ value: Data, type: WriteType = .request, mtu: Int? = nil) async throws(BlueZError)
        -> Int
    {
        let effective: Int
        if let mtu { effective = mtu } else { effective = (try? await self.mtu()) ?? 23 }
        let chunks = ChunkedValue.chunks(of: value, chunkSize: ChunkedValue.chunkSize(mtu: effective))
        for chunk in chunks { try await write(chunk, type: type) }
        return chunks.count
    }

    /// Notifications reassembled into whole ``ChunkedValue`` values.
    /// Reads ``ChunkedValue`` chunks (each ReadValue answers the server's next chunk) until one whole value
    /// is reassembled. Reads are acknowledged and ordered, so this is the dependable way to fetch a large value.
    /// - Throws: ``BlueZError`` `.malformedReply` when the server answers an empty chunk before the value is whole.
    public func readChunked(limit: Int = 16 << 20) async throws(BlueZError) -> Data {
        var reassembler = ChunkedValue.Reassembler(limit: limit)
        while true {
            let chunk = try await read()
            guard !chunk.isEmpty else {
                throw BlueZError(.malformedReply, "\(path) answered an empty chunk before the value was complete")
            }
            if let value = try reassembler.append(chunk) { return value }
        }
    }

    /// Values arrive through ``acquireNotifications()``.
    public func chunkedNotifications(limit: Int = 16 << 20) async throws(BlueZError)
        -> AsyncThrowingStream<Data, Error>
    {
        let raw = try await acquireNotifications().values
        return AsyncThrowingStream { continuation in
            let task = Task {
                var reassembler = ChunkedValue.Reassembler(limit: limit)
                do {
                    for await chunk in raw {
                        if let value = try reassembler.append(chunk) { continuation.yield(value) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
