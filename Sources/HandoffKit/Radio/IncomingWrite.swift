/// A frame a central sent to the transfer service: a write to the request characteristic, or an SDU on its
/// L2CAP channel.
public struct IncomingWrite: Sendable, Equatable {
    /// The writing central. A central on a channel is named apart from its GATT self, so that answers go back
    /// on the path the frame came by.
    public var central: PeerAddress
    /// The value.
    public var value: [UInt8]
    /// That central's ATT MTU (BlueZ passes it in WriteValue's options; for a channel the ATT MTU it stands in for).
    public var mtu: Int
    /// The largest frame the central can take back: `WireProtocol.valueLength(forMTU: mtu)` for a GATT central,
    /// the channel's send SDU size for a channel.
    public var maximumFrameLength: Int
    /// How the frame came: `.gatt` or `.l2cap`.
    public var transport: LinkTransport.Kind

    /// A GATT write (its frame limit is one ATT value at `mtu`).
    public init(central: PeerAddress, value: [UInt8], mtu: Int) {
        self.init(central: central, value: value, mtu: mtu, maximumFrameLength: WireProtocol.valueLength(forMTU: mtu),
                  transport: .gatt)
    }

    /// A write on either path, with the largest frame the central takes back.
    public init(central: PeerAddress, value: [UInt8], mtu: Int, maximumFrameLength: Int, transport: LinkTransport.Kind) {
        self.central = central
        self.value = value
        self.mtu = mtu
        self.maximumFrameLength = maximumFrameLength
        self.transport = transport
    }
}
