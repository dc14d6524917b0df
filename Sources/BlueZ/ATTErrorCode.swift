/// An ATT protocol error code (Bluetooth Core Vol 3 Part F 3.4.1.1), as BlueZ maps it to and from D-Bus errors.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The one-byte code on the air.
    public let rawValue: UInt8

    /// Wraps a raw code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Invalid Handle.
    public static let invalidHandle = ATTErrorCode(rawValue: 0x01)
    /// 0x02 Read Not Permitted.
    public static let readNotPermitted = ATTErrorCode(rawValue: 0x02)
    /// 0x03 Write Not Permitted.
    public static let writeNotPermitted = ATTErrorCode(rawValue: 0x03)
    /// 0x05 Insufficient Authentication.
    public static let insufficientAuthentication = ATTErrorCode(rawValue: 0x05)
    /// 0x06 Request Not Supported.
    public static let requestNotSupported = ATTErrorCode(rawValue: 0x06)
    /// 0x07 Invalid Offset.
    public static let invalidOffset = ATTErrorCode(rawValue: 0x07)
    /// 0x08 Insufficient Authorization.
    public static let insufficientAuthorization = ATTErrorCode(rawValue: 0x08)
    /// 0x0A Attribute Not Found.
    public static let attributeNotFound = ATTErrorCode(rawValue: 0x0A)
    /// 0x0D Invalid Attribute Value Length.
    public static let invalidAttributeValueLength = ATTErrorCode(rawValue: 0x0D)
    /// 0x0E Unlikely Error.
    public static let unlikely = ATTErrorCode(rawValue: 0x0E)
    /// 0x0F Insufficient Encryption.
    public static let insufficientEncryption = ATTErrorCode(rawValue: 0x0F)
    /// 0x80 the first application error; bluetoothd sends it for an application's `org.bluez.Error.Failed`.
    public static let application = ATTErrorCode(rawValue: 0x80)

    /// `0x0e` style hex.
    public var description: String {
        let hex = String(rawValue, radix: 16)
        return "0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}
