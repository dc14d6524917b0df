/// What the kernel says of one Bluetooth controller: the reply of the management interface's Read Controller
/// Information command (BlueZ `doc/mgmt-api.txt`, opcode 0x0004), as `btmgmt info` prints it.
///
/// This is the ground truth of what the adapter does, whatever main.conf says: bluetoothd sets these settings
/// through the same interface. Any user may read it (it is one of the management interface's untrusted commands).
public struct ControllerInfo: Sendable, Equatable, Codable {
    /// `hci0`, `hci1`, …
    public var name: String
    /// The public address (all zeros when the controller has none and uses a static random address).
    public var address: String
    /// The settings in force (`current_settings`).
    public var settings: Settings
    /// The local name bluetoothd set: the adapter's Alias, which its GAP service serves as the Device Name.
    public var localName: String
    /// The short local name.
    public var shortName: String

    /// The management interface's settings bits.
    public struct Settings: OptionSet, Sendable, Equatable, Codable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let powered = Settings(rawValue: 1 << 0)
        public static let connectable = Settings(rawValue: 1 << 1)
        public static let discoverable = Settings(rawValue: 1 << 3)
        public static let bredr = Settings(rawValue: 1 << 7)
        public static let le = Settings(rawValue: 1 << 9)
        public static let advertising = Settings(rawValue: 1 << 10)
        public static let privacy = Settings(rawValue: 1 << 13)
        public static let staticAddress = Settings(rawValue: 1 << 15)

        /// The names `btmgmt info` prints, for the set bits handoff cares about.
        public var names: [String] {
            [(Settings.powered, "powered"), (.connectable, "connectable"), (.discoverable, "discoverable"),
             (.bredr, "br/edr"), (.le, "le"), (.advertising, "advertising"), (.privacy, "privacy"),
             (.staticAddress, "static-addr")].filter { contains($0.0) }.map(\.1)
        }
    }

    public init(name: String, address: String, settings: Settings, localName: String, shortName: String = "") {
        self.name = name
        self.address = address
        self.settings = settings
        self.localName = localName
        self.shortName = shortName
    }

    /// Whether the controller has no public address, so that it uses a static random one.
    public var hasPublicAddress: Bool { address != "00:00:00:00:00:00" }

    /// Parses the reply parameters of Read Controller Information for controller `index`: address (6, little
    /// endian), version (1), manufacturer (2), supported settings (4), current settings (4), class (3), name (249),
    /// short name (11). Nil when the reply is shorter than 280 bytes.
    public init?(index: UInt16, reply: [UInt8]) {
        guard reply.count >= 280 else { return nil }
        func string(_ bytes: ArraySlice<UInt8>) -> String {
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        let current = reply[13..<17].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        self.init(
            name: "hci\(index)",
            address: reply[0..<6].reversed().map { hex($0) }.joined(separator: ":"),
            settings: Settings(rawValue: current),
            localName: string(reply[20..<269]),
            shortName: string(reply[269..<280]))
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
