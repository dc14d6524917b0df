import DBus
import FoundationEssentials

/// A GATT server to export: services, their characteristics and descriptors, with the code that answers.
///
/// The tree is fixed once registered (bluetoothd ignores InterfacesAdded after RegisterApplication).
/// Anything without a handler is refused with `org.bluez.Error.NotSupported`, whatever its flags say.
public struct GattApplication: Sendable {
    /// The services, exported as `<root>/service0`, `service1`, …
    public var services: [Service]

    /// An application of these services.
    public init(services: [Service]) { self.services = services }

    /// A service (exported as `org.bluez.GattService1`).
    public struct Service: Sendable {
        /// `UUID`.
        public var uuid: BluetoothUUID
        /// `Primary`.
        public var primary: Bool
        /// The characteristics, exported as `service0/char0`, `char1`, …
        public var characteristics: [Characteristic]

        /// A service.
        public init(uuid: BluetoothUUID, primary: Bool = true, characteristics: [Characteristic]) {
            self.uuid = uuid
            self.primary = primary
            self.characteristics = characteristics
        }
    }

    /// A characteristic (exported as `org.bluez.GattCharacteristic1`).
    public struct Characteristic: Sendable {
        /// `UUID`.
        public var uuid: BluetoothUUID
        /// `Flags`.
        public var flags: Set<GattFlag>
        /// Answers ReadValue; nil refuses reads.
        public var onRead: GattReadHandler?
        /// Answers WriteValue; nil refuses writes.
        public var onWrite: GattWriteHandler?
        /// Told when a client subscribes (true) or unsubscribes (false).
        public var onSubscribe: (@Sendable (Bool) async -> Void)?
        /// The descriptors, exported as `char0/desc0`, …
        public var descriptors: [Descriptor]

        /// A characteristic. Give handlers for what the flags promise; notifications go through
        /// ``GattRegistration/notify(_:value:)``.
        public init(
            uuid: BluetoothUUID, flags: Set<GattFlag>, descriptors: [Descriptor] = [],
            onRead: GattReadHandler? = nil, onWrite: GattWriteHandler? = nil,
            onSubscribe: (@Sendable (Bool) async -> Void)? = nil
        ) {
            self.uuid = uuid
            self.flags = flags
            self.descriptors = descriptors
            self.onRead = onRead
            self.onWrite = onWrite
            self.onSubscribe = onSubscribe
        }
    }

    /// A descriptor (exported as `org.bluez.GattDescriptor1`).
    public struct Descriptor: Sendable {
        /// `UUID`.
        public var uuid: BluetoothUUID
        /// `Flags` (`read`, `write`, `encrypt-read`, …).
        public var flags: Set<GattFlag>
        /// Answers ReadValue; nil refuses reads.
        public var onRead: GattReadHandler?
        /// Answers WriteValue; nil refuses writes.
        public var onWrite: GattWriteHandler?

        /// A descriptor.
        public init(
            uuid: BluetoothUUID, flags: Set<GattFlag>, onRead: GattReadHandler? = nil,
            onWrite: GattWriteHandler? = nil
        ) {
            self.uuid = uuid
            self.flags = flags
            self.onRead = onRead
            self.onWrite = onWrite
        }

        /// A read-only descriptor with a fixed value (e.g. 0x2901 Characteristic User Description).
        public static func constant(_ uuid: BluetoothUUID, _ value: Data) -> Descriptor {
            Descriptor(uuid: uuid, flags: [.read], onRead: { request in try value.reading(from: request.offset) })
        }
    }
}

/// Answers a read: the value from `request.offset` on (BlueZ truncates to 512 bytes).
public typealias GattReadHandler = @Sendable (GattRequest) async throws -> Data
/// Takes a written value; throw a ``BlueZError`` (e.g. `.notPermitted`) to refuse with its BlueZ error name.
public typealias GattWriteHandler = @Sendable (Data, GattRequest) async throws -> Void

extension Data {
    /// The bytes from `offset` on, as a ReadValue answer; InvalidOffset beyond the end.
    public func reading(from offset: Int) throws(BlueZError) -> Data {
        guard offset >= 0, offset <= count else {
            throw BlueZError(.invalidOffset, "offset \(offset) is beyond the \(count)-byte value")
        }
        return Data(dropFirst(offset))
    }
}
