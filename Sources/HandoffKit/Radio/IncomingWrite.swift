/// A value a central wrote to the request characteristic.
public struct IncomingWrite: Sendable, Equatable {
    /// The writing central.
    public var central: PeerAddress
    /// The value.
    public var value: [UInt8]
    /// That central's ATT MTU (BlueZ passes it in WriteValue's options).
    public var mtu: Int

    /// Creates a write.
    public init(central: PeerAddress, value: [UInt8], mtu: Int) {
        self.central = central
        self.value = value
        self.mtu = mtu
    }
}
