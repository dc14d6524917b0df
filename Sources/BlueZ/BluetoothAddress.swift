import DBus
import FoundationEssentials

/// A Bluetooth device address (`AA:BB:CC:DD:EE:FF`), stored upper-case as BlueZ reports it.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible {
    /// The colon-separated, upper-case form.
    public let string: String

    /// Parses six colon-separated hex octets; returns nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && UInt8($0, radix: 16) != nil }) else {
            return nil
        }
        string = text.uppercased()
    }

    /// The `dev_AA_BB_…` element BlueZ uses for this address in object paths.
    public var pathElement: String { "dev_" + string.replacing(":", with: "_") }

    /// The address of a device object path's last element (`/org/bluez/hci0/dev_AA_BB_…`); nil when it names no
    /// device.
    public init?(devicePath: ObjectPath) {
        guard let last = devicePath.elements.last, last.hasPrefix("dev_") else { return nil }
        self.init(String(last.dropFirst(4)).replacing("_", with: ":"))
    }

    /// The address string.
    public var description: String { string }
}
