import DBus
import FoundationEssentials
import HandoffShared

#if canImport(Glibc)
import Glibc
#endif

extension GattCharacteristic1 {
    /// Subscribes with `AcquireNotify`: bluetoothd hands over a socket and every notification arrives on it as
    /// one packet, in order. Prefer it for streams: through ``notifications()`` (PropertiesChanged on `Value`),
    /// bluetoothd 5.66 sends the property's value at the time it flushes its signals, so under load several
    /// signals can carry the same, latest value (measured in the VM tier: 69 signals for 69 notifications, but
    /// not the 69 values).
    ///
    /// - Returns: the values and the ATT MTU bluetoothd reported. Ending iteration closes the socket, which
    ///   unsubscribes.
    public func acquireNotifications() async throws(BlueZError) -> (values: AsyncStream<Data>, mtu: Int) {
        let reply = try await bluez.call(
            path, BlueZNames.gattCharacteristic1, "AcquireNotify", [[String: Variant]().dbusValue])
        guard reply.count == 2, case .unixFD(let handle) = reply[0], case .uint16(let mtu) = reply[1] else {
            throw BlueZError(.malformedReply, "AcquireNotify on \(path) did not return (h, q)")
        }
        let fd: Int32
        do {
            fd = try handle.duplicateRawDescriptor()
        } catch {
            throw BlueZError(.bus, "cannot take the notification socket: \(error.message)", cause: error)
        }
        let (values, continuation) = AsyncStream<Data>.makeStream(bufferingPolicy: .unbounded)
        let reader: @Sendable () -> Void = {
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = Glibc.read(fd, &buffer, buffer.count)
                if count > 0 {
                    continuation.yield(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(fd)
            continuation.finish()
        }
        continuation.onTermination = { _ in _ = shutdown(fd, Int32(SHUT_RDWR)) }
        DetachedThread.start(reader)
        return (values, Int(mtu))
    }
}
