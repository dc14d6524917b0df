/// An LE address with its type, as the kernel's `sockaddr_l2` wants it (`l2_bdaddr` + `l2_bdaddr_type`).
public struct L2CAPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The LE address type: `BDADDR_LE_PUBLIC` or `BDADDR_LE_RANDOM`. An LE channel to a peer that uses a random
    /// (e.g. resolvable private) address must name it as random, or the kernel looks for another device.
    public enum Kind: Sendable, Hashable {
        case lePublic
        case leRandom

        /// BlueZ's `AddressType` property value: "public" or "random".
        public var addressType: String { self == .lePublic ? "public" : "random" }
    }

    /// "AA:BB:CC:DD:EE:FF", upper-case, most significant octet first (as BlueZ and `hciconfig` print it).
    public let address: String
    public let kind: Kind
    /// The six octets in written order.
    let bytes: [UInt8]

    /// Nil unless `address` is six two-digit hex octets separated by colons (either case).
    public init?(_ address: String, kind: Kind) {
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, part.allSatisfy(\.isHexDigit), let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes: bytes, kind: kind)
    }

    /// From `Device1.Address` + `Device1.AddressType` (or the adapter's): `addressType` is "public" or "random".
    public init?(_ address: String, addressType: String) {
        switch addressType {
        case "public": self.init(address, kind: .lePublic)
        case "random": self.init(address, kind: .leRandom)
        default: return nil
        }
    }

    init(bytes: [UInt8], kind: Kind) {
        precondition(bytes.count == 6, "an LE address has six octets")
        self.bytes = bytes
        self.kind = kind
        self.address = bytes.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// "AA:BB:CC:DD:EE:FF (public)".
    public var description: String { "\(address) (\(kind.addressType))" }

    public static func == (lhs: L2CAPAddress, rhs: L2CAPAddress) -> Bool {
        lhs.bytes == rhs.bytes && lhs.kind == rhs.kind
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
        hasher.combine(kind)
    }
}
