/// A Bluetooth UUID in BlueZ's spelling: 128 bits, lower-case, dashed.
///
/// 16- and 32-bit short forms (`"180d"`, `"0x180D"`) are expanded with the Bluetooth base UUID, so two UUIDs
/// compare equal however they were written. BlueZ always reports the long form.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The normalised 128-bit form, e.g. `0000180d-0000-1000-8000-00805f9b34fb`.
    public let string: String

    /// The suffix that turns a 16/32-bit UUID into a 128-bit one.
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Parses a short (`180d`, `0x180D`) or long UUID; returns nil for anything else.
    public init?(_ text: String) {
        var lower = text.lowercased()
        if lower.hasPrefix("0x") { lower.removeFirst(2) }
        let hex = Set("0123456789abcdef")
        if (1...8).contains(lower.count), lower.allSatisfy(hex.contains) {
            string = String(repeating: "0", count: 8 - lower.count) + lower + Self.baseSuffix
            return
        }
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(hex.contains) }) else {
            return nil
        }
        string = lower
    }

    /// A UUID from a 16-bit assigned number (`0x180D`).
    public init(short: UInt16) {
        let hex = String(short, radix: 16)
        string = String(repeating: "0", count: 8 - hex.count) + hex + Self.baseSuffix
    }

    /// The normalised string.
    public var description: String { string }
}
