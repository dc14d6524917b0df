import FoundationEssentials

/// What we ask bluetoothd to watch for: the properties of an exported `org.bluez.AdvertisementMonitor1`
/// (doc/org.bluez.AdvertisementMonitor.rst), of type `or_patterns`.
///
/// An advertisement matches when any pattern matches one of its AD structures: the structure has the pattern's
/// AD type and, from `start`, begins with `content`. Run it with ``Adapter1/monitor(_:)``: bluetoothd then scans
/// passively and only devices whose advertisements match become (and update) Device1 objects, whether or not
/// anyone runs a discovery.
public struct AdvertisementMonitor: Sendable, Equatable {
    /// One `(start, AD type, content)` entry of `Patterns` (`a(yyay)`).
    public struct Pattern: Sendable, Equatable {
        /// The offset in the AD structure's data (after the type byte) where `content` starts.
        public var start: UInt8
        /// The AD type (0xFF manufacturer specific data, 0x16 16-bit service data, …).
        public var adType: UInt8
        /// The bytes to find; 1 to 29 bytes (31-byte advertising data less length and type).
        public var content: [UInt8]

        /// A pattern.
        public init(start: UInt8 = 0, adType: UInt8, content: [UInt8]) {
            self.start = start
            self.adType = adType
            self.content = content
        }

        /// AD type 0xFF (manufacturer specific data): the company identifier (little-endian, as on the air)
        /// followed by `prefix`.
        public static func manufacturerData(company: UInt16, prefix: [UInt8] = []) -> Pattern {
            Pattern(start: 0, adType: 0xFF, content: [UInt8(company & 0xFF), UInt8(company >> 8)] + prefix)
        }
    }

    /// `RSSIHighThreshold`/`RSSILowThreshold` (dBm) and their timeouts (s). Left out, bluetoothd applies no RSSI
    /// filter and calls `DeviceFound` for every matching advertisement.
    public struct RSSIThresholds: Sendable, Equatable {
        /// In range once every report is above this for `highTimeout` seconds.
        public var high: Int16
        /// Seconds above `high` before `DeviceFound`.
        public var highTimeout: UInt16
        /// Out of range once no report is above this for `lowTimeout` seconds.
        public var low: Int16
        /// Seconds below `low` (or silent) before `DeviceLost`.
        public var lowTimeout: UInt16

        /// Thresholds.
        public init(high: Int16, highTimeout: UInt16, low: Int16, lowTimeout: UInt16) {
            self.high = high
            self.highTimeout = highTimeout
            self.low = low
            self.lowTimeout = lowTimeout
        }
    }

    /// `Patterns`; at least one.
    public var patterns: [Pattern]
    /// The RSSI thresholds; nil leaves them open (no RSSI filtering).
    public var rssi: RSSIThresholds?

    /// A monitor of these patterns.
    public init(patterns: [Pattern], rssi: RSSIThresholds? = nil) {
        self.patterns = patterns
        self.rssi = rssi
    }

    /// The `Type` string.
    public static let orPatterns = "or_patterns"

    /// Whether `device`'s data, as bluetoothd exposes it, carries one of the patterns. Checked for manufacturer
    /// data (0xFF) and 16-bit service data (0x16), the AD types Device1 keeps apart; a pattern on any other AD
    /// type is taken as matching (bluetoothd already checked it). This is the re-check of every device, since
    /// Device1 objects other clients' discoveries create reach us as well.
    public func matches(_ device: Device1.Properties) -> Bool {
        patterns.contains { pattern in
            switch pattern.adType {
            case 0xFF:
                return device.manufacturerData.contains { company, data in
                    let field = [UInt8(company & 0xFF), UInt8(company >> 8)] + [UInt8](data)
                    return Self.field(field, contains: pattern)
                }
            case 0x16:
                return device.serviceData.contains { uuid, data in
                    guard let short = Self.shortValue(uuid) else { return false }
                    let field = [UInt8(short & 0xFF), UInt8(short >> 8)] + [UInt8](data)
                    return Self.field(field, contains: pattern)
                }
            default:
                return true
            }
        }
    }

    /// The 16-bit number of a UUID in the Bluetooth base range, nil for any other.
    static func shortValue(_ uuid: BluetoothUUID) -> UInt16? {
        let text = uuid.string
        guard text.hasPrefix("0000"), text.hasSuffix(BluetoothUUID.baseSuffix) else { return nil }
        return UInt16(text.dropFirst(4).prefix(4), radix: 16)
    }

    static func field(_ field: [UInt8], contains pattern: Pattern) -> Bool {
        let start = Int(pattern.start)
        guard field.count >= start + pattern.content.count else { return false }
        return Array(field[start..<start + pattern.content.count]) == pattern.content
    }

    /// Refuses what bluetoothd would refuse (after we had exported it): no pattern, an empty or over-long one,
    /// thresholds out of -127...20 dBm or high below low.
    func validate() throws(BlueZError) {
        guard !patterns.isEmpty else { throw BlueZError(.invalidInput, "an or_patterns monitor needs a pattern") }
        for pattern in patterns where pattern.content.isEmpty || Int(pattern.start) + pattern.content.count > 31 {
            throw BlueZError(.invalidInput, "pattern on AD type \(pattern.adType) has \(pattern.content.count) bytes "
                + "from \(pattern.start); 1 to 31 bytes in all")
        }
        if let rssi, !(-127...20).contains(rssi.high) || !(-127...20).contains(rssi.low) || rssi.high < rssi.low {
            throw BlueZError(.invalidInput, "RSSI thresholds \(rssi.high)/\(rssi.low) dBm: -127...20, high >= low")
        }
    }
}
