import FoundationEssentials

extension BlueZError {
    /// Translates a D-Bus error reply from bluetoothd into a typed error.
    ///
    /// `org.bluez.Error.Failed` with "Operation failed with ATT error: 0x0e" becomes `.att(0x0e)`; every other
    /// `org.bluez.Error.X` becomes `.bluez("X")`; a foreign name becomes ``Code/bus``.
    public init(remoteName: String, message: String, cause: (any Error & Sendable)? = nil) {
        guard remoteName.hasPrefix(BlueZNames.errorPrefix) else {
            self.init(.bus, message.isEmpty ? remoteName : message, name: remoteName, cause: cause)
            return
        }
        let short = String(remoteName.dropFirst(BlueZNames.errorPrefix.count))
        if let att = Self.attCode(in: message) ?? Self.attCode(short: short, message: message) {
            self.init(.att(att), message, name: remoteName, cause: cause)
        } else {
            self.init(.bluez(short), message.isEmpty ? short : message, name: remoteName, cause: cause)
        }
    }

    /// The ATT errors bluetoothd's GATT client reports under other names (src/gatt-client.c,
    /// create_gatt_dbus_error): InvalidArguments "Invalid Length" / "Invalid offset", NotPermitted "Read not
    /// permitted" / "Write not permitted".
    static func attCode(short: String, message: String) -> ATTErrorCode? {
        switch (short, message) {
        case ("InvalidArguments", "Invalid Length"): .invalidAttributeValueLength
        case ("InvalidArguments", "Invalid offset"): .invalidOffset
        case ("NotPermitted", "Read not permitted"): .readNotPermitted
        case ("NotPermitted", "Write not permitted"): .writeNotPermitted
        default: nil
        }
    }

    /// Finds "ATT error: 0xNN" in bluetoothd's message text.
    static func attCode(in message: String) -> ATTErrorCode? {
        guard let range = message.firstRange(of: "ATT error: 0x") else { return nil }
        let hex = message[range.upperBound...].prefix(while: \.isHexDigit)
        guard let raw = UInt8(hex, radix: 16) else { return nil }
        return ATTErrorCode(rawValue: raw)
    }

    /// Whether a Connect failure is the transient `le-connection-abort-by-local` one that deserves a retry.
    public var isConnectionAbortByLocal: Bool {
        message.contains(BlueZNames.leConnectionAbortByLocal)
    }

    /// Whether a Connect failure is bluetoothd's `Failed: Input/output error`: its LE connect could not start
    /// (`device_connect_le`, bt_io_connect failed; bluetoothd logs the cause and answers EIO). The usual cause is
    /// the kernel's `EBUSY`: a controller makes one LE connection at a time, and another attempt (a channel the
    /// kernel connects itself, one just closed) is still pending for a moment. Worth a retry after a pause.
    public var isLocalConnectRefused: Bool {
        code == .failed && message == "Input/output error"
    }
}
