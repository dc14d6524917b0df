import DBus
import FoundationEssentials

/// The options bluetoothd passes with a ReadValue or WriteValue call to our GATT server.
public struct GattRequest: Sendable, Equatable {
    /// `offset`: where in the value the read or write starts. Honour it, or long reads break.
    public var offset: Int
    /// `mtu`: the connection's ATT MTU, when bluetoothd says.
    public var mtu: Int?
    /// `device`: the remote device's object path.
    public var device: ObjectPath?
    /// `link`: `LE` or `BR/EDR`.
    public var link: String?
    /// `type` of a write: `command` (no response), `request` or `reliable`; nil for reads.
    public var writeType: String?
    /// `prepare-authorize`: bluetoothd only asks whether a prepared write would be accepted.
    public var prepareAuthorize: Bool

    /// Builds a request (tests build these by hand).
    public init(
        offset: Int = 0, mtu: Int? = nil, device: ObjectPath? = nil, link: String? = nil,
        writeType: String? = nil, prepareAuthorize: Bool = false
    ) {
        self.offset = offset
        self.mtu = mtu
        self.device = device
        self.link = link
        self.writeType = writeType
        self.prepareAuthorize = prepareAuthorize
    }
}
