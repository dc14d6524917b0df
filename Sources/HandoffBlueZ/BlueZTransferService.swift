import BlueZ
import DBus
import Foundation
import HandoffKit
import Synchronization

/// The source side of the transfer service: a GATT application with the request characteristic (`write`,
/// `write-without-response`) and the data characteristic (`notify`), registered on the radio's adapter.
///
/// Centrals are named by the `device` option bluetoothd passes with each WriteValue (the central's Device1 path on
/// this adapter), and each central's ATT MTU is the `mtu` option of its last write.
final class BlueZTransferService: TransferService {
    let writes: AsyncStream<IncomingWrite>
    private let continuation: AsyncStream<IncomingWrite>.Continuation
    private let registration: GattRegistration
    private let centrals: CentralTable
    private let bluez: BlueZ
    private let fallbackMTU: Int
    private let closed = Mutex(false)
    private let onClose: @Sendable () async -> Void

    // The `??` arms are never taken: the protocol's constants are valid UUIDs (this avoids a force-unwrap).
    static let serviceUUID = BluetoothUUID(WireProtocol.transferServiceUUID) ?? BluetoothUUID(short: 0xFE2C)
    static let requestUUID = BluetoothUUID(WireProtocol.requestCharacteristicUUID) ?? BluetoothUUID(short: 0xFE2C)
    static let dataUUID = BluetoothUUID(WireProtocol.dataCharacteristicUUID) ?? BluetoothUUID(short: 0xFE2C)

    private init(writes: AsyncStream<IncomingWrite>, continuation: AsyncStream<IncomingWrite>.Continuation,
                 registration: GattRegistration, centrals: CentralTable, bluez: BlueZ, fallbackMTU: Int,
                 onClose: @escaping @Sendable () async -> Void) {
        self.writes = writes
        self.continuation = continuation
        self.registration = registration
        self.centrals = centrals
        self.bluez = bluez
        self.fallbackMTU = fallbackMTU
        self.onClose = onClose
    }

    /// Exports and registers the application on `adapter`.
    static func open(on adapter: Adapter1, bluez: BlueZ, fallbackMTU: Int, log: @escaping @Sendable (String) -> Void,
                     onClose: @escaping @Sendable () async -> Void) async throws(BlueZError) -> BlueZTransferService {
        let (writes, continuation) = AsyncStream<IncomingWrite>.makeStream(bufferingPolicy: .unbounded)
        let centrals = CentralTable()
        let request = GattApplication.Characteristic(
            uuid: requestUUID, flags: [.write, .writeWithoutResponse],
            onWrite: { value, request in
                if request.prepareAuthorize { return }        // only asked whether a prepared write would pass
                guard value.count <= WireProtocol.maximumValueLength else {
                    throw BlueZError(.invalidValueLength, "a request value holds at most 512 bytes")
                }
                let central = PeerAddress(request.device?.rawValue ?? "unknown-central")
                let mtu = centrals.note(central, mtu: request.mtu, fallback: fallbackMTU)
                log("write of \(value.count) B (frame kind \(value.count > 1 ? String(value[value.startIndex + 1], radix: 16) : "-")) from "
                    + "\(central), MTU \(mtu)")
                continuation.yield(IncomingWrite(central: central, value: [UInt8](value), mtu: mtu))
            })
        let data = GattApplication.Characteristic(uuid: dataUUID, flags: [.notify])
        let application = GattApplication(services: [
            GattApplication.Service(uuid: serviceUUID, characteristics: [request, data])
        ])
        let registration = try await bluez.register(application, on: adapter)
        return BlueZTransferService(writes: writes, continuation: continuation, registration: registration,
                                    centrals: centrals, bluez: bluez, fallbackMTU: fallbackMTU, onClose: onClose)
    }

    /// Notifies `value` on the data characteristic. bluetoothd sends it to every subscribed central (frames carry
    /// ids, so that is correct); `central` decides the size limit and must still be connected.
    func notify(_ value: [UInt8], to central: PeerAddress) async throws {
        guard !closed.withLock({ $0 }) else { throw RadioError(.disconnected, "the transfer service is closed") }
        let mtu = centrals.mtu(of: central) ?? fallbackMTU
        guard value.count <= WireProtocol.valueLength(forMTU: mtu) else {
            throw RadioError(.valueTooLong, "a notification of \(value.count) bytes exceeds \(central)'s MTU \(mtu) - 3")
        }
        guard await isConnected(central) else {
            throw RadioError(.disconnected, "\(central) is no longer connected")
        }
        let sent: Bool
        do {
            sent = try registration.notify(Self.dataUUID, value: Data(value), service: Self.serviceUUID)
        } catch {
            throw RadioError(error, while: "cannot notify \(central)")
        }
        guard sent else { throw RadioError(.disconnected, "no central is subscribed to the data characteristic") }
    }

    /// Whether the central's Device1 on this adapter is connected (unknown names count as connected). The mirror
    /// answers when it says yes; otherwise bluetoothd is asked, because a WriteValue can arrive before the
    /// mirror has applied the PropertiesChanged that announced the connection.
    private func isConnected(_ central: PeerAddress) async -> Bool {
        guard let path = ObjectPath(rawValue: central.rawValue) else { return true }
        if (try? await bluez.device(at: path).properties())?.connected == true { return true }
        return await bluez.connectedNow(path) == true
    }

    /// Unregisters the application and ends `writes`. Idempotent.
    func close() async {
        let wasClosed = closed.withLock { state -> Bool in
            defer { state = true }
            return state
        }
        guard !wasClosed else { return }
        continuation.finish()
        await registration.cancel()
        await onClose()
    }
}

/// The ATT MTU of each central, as bluetoothd last reported it in a WriteValue's options.
final class CentralTable: Sendable {
    private let mtus = Mutex<[PeerAddress: Int]>([:])

    /// Records `mtu` for `central` when given; returns the MTU to use for it.
    func note(_ central: PeerAddress, mtu: Int?, fallback: Int) -> Int {
        mtus.withLock { table in
            if let mtu { table[central] = mtu }
            return table[central] ?? fallback
        }
    }

    /// The MTU last recorded for `central`.
    func mtu(of central: PeerAddress) -> Int? {
        mtus.withLock { $0[central] }
    }
}
