/// One entry of a GATT characteristic's or descriptor's `Flags` property (doc/org.bluez.GattCharacteristic.rst).
///
/// The encrypt-, encrypt-authenticated- and secure- variants make bluetoothd demand an encrypted, an
/// authenticated (MITM-protected) or a Secure Connections link before it forwards the request to us.
public struct GattFlag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The string BlueZ expects.
    public let rawValue: String
    /// Wraps a flag string (for flags newer than this list).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `broadcast`.
    public static let broadcast = GattFlag(rawValue: "broadcast")
    /// `read`.
    public static let read = GattFlag(rawValue: "read")
    /// `write-without-response` (WriteValue with type `command`).
    public static let writeWithoutResponse = GattFlag(rawValue: "write-without-response")
    /// `write` (WriteValue with type `request`).
    public static let write = GattFlag(rawValue: "write")
    /// `notify`.
    public static let notify = GattFlag(rawValue: "notify")
    /// `indicate`.
    public static let indicate = GattFlag(rawValue: "indicate")
    /// `authenticated-signed-writes`.
    public static let authenticatedSignedWrites = GattFlag(rawValue: "authenticated-signed-writes")
    /// `extended-properties`.
    public static let extendedProperties = GattFlag(rawValue: "extended-properties")
    /// `reliable-write`.
    public static let reliableWrite = GattFlag(rawValue: "reliable-write")
    /// `writable-auxiliaries`.
    public static let writableAuxiliaries = GattFlag(rawValue: "writable-auxiliaries")
    /// `encrypt-read`.
    public static let encryptRead = GattFlag(rawValue: "encrypt-read")
    /// `encrypt-write`.
    public static let encryptWrite = GattFlag(rawValue: "encrypt-write")
    /// `encrypt-notify` (server only).
    public static let encryptNotify = GattFlag(rawValue: "encrypt-notify")
    /// `encrypt-indicate` (server only).
    public static let encryptIndicate = GattFlag(rawValue: "encrypt-indicate")
    /// `encrypt-authenticated-read`.
    public static let encryptAuthenticatedRead = GattFlag(rawValue: "encrypt-authenticated-read")
    /// `encrypt-authenticated-write`.
    public static let encryptAuthenticatedWrite = GattFlag(rawValue: "encrypt-authenticated-write")
    /// `encrypt-authenticated-notify` (server only).
    public static let encryptAuthenticatedNotify = GattFlag(rawValue: "encrypt-authenticated-notify")
    /// `encrypt-authenticated-indicate` (server only).
    public static let encryptAuthenticatedIndicate = GattFlag(rawValue: "encrypt-authenticated-indicate")
    /// `secure-read` (server only).
    public static let secureRead = GattFlag(rawValue: "secure-read")
    /// `secure-write` (server only).
    public static let secureWrite = GattFlag(rawValue: "secure-write")
    /// `secure-notify` (server only).
    public static let secureNotify = GattFlag(rawValue: "secure-notify")
    /// `secure-indicate` (server only).
    public static let secureIndicate = GattFlag(rawValue: "secure-indicate")
    /// `authorize`: bluetoothd asks us (WriteValue with `prepare-authorize`) before a prepared write.
    public static let authorize = GattFlag(rawValue: "authorize")

    /// Flags that allow reading in some form.
    static let readFamily: Set<GattFlag> = [.read, .encryptRead, .encryptAuthenticatedRead, .secureRead]
    /// Flags that allow writing in some form.
    static let writeFamily: Set<GattFlag> = [
        .write, .writeWithoutResponse, .encryptWrite, .encryptAuthenticatedWrite, .secureWrite,
        .authenticatedSignedWrites, .reliableWrite,
    ]
    /// Flags that allow notifying or indicating in some form.
    static let notifyFamily: Set<GattFlag> = [
        .notify, .indicate, .encryptNotify, .encryptIndicate, .encryptAuthenticatedNotify,
        .encryptAuthenticatedIndicate, .secureNotify, .secureIndicate,
    ]

    /// The string.
    public var description: String { rawValue }
}
