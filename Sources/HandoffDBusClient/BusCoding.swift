import DBus
import FoundationEssentials
import HandoffClient

/// An activity summary travels as `(ssssdt)`: id, type, title, device, age in seconds, size in bytes.
extension ActivitySummary: DBusRepresentable {
    /// The fields on the wire, in order; a negative size is sent as 0.
    typealias Wire = DBusStructure<String, String, String, String, Double, UInt64>

    /// `(ssssdt)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads a `(ssssdt)` activity summary.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, type, title, device, age, size) = try Wire(dbusValue: dbusValue).fields
        self.init(id: ActivityID(rawValue: id), type: type, title: title, device: device, age: age,
                  size: Int(clamping: size))
    }

    /// The summary as `(ssssdt)`.
    public var dbusValue: Value {
        Wire(id.rawValue, type, title, device, age, UInt64(max(0, size))).dbusValue
    }
}

/// A paired device travels as `(ssbd)`: id, name, in range, seconds since last seen (negative: never).
extension DeviceInfo: DBusRepresentable {
    /// The fields on the wire, in order.
    typealias Wire = DBusStructure<String, String, Bool, Double>

    /// `(ssbd)`.
    public static var dbusType: DBusType { Wire.dbusType }

    /// Reads a `(ssbd)` device; a negative age means never seen.
    public init(dbusValue: Value) throws(DBusError) {
        let (id, name, inRange, seen) = try Wire(dbusValue: dbusValue).fields
        self.init(id: id, name: name, inRange: inRange, lastSeenSecondsAgo: seen < 0 ? nil : seen)
    }

    /// The device as `(ssbd)`; a device never seen has a negative age.
    public var dbusValue: Value { Wire(id, name, inRange, lastSeenSecondsAgo ?? -1).dbusValue }
}

/// How the bytes of a continue came, as the `a{ss}` that `Continue` returns last: `transport` (`l2cap`, `gatt`)
/// and, after a fallback, `fallback`. Unknown entries are ignored.
public struct ContinuePath: DBusRepresentable, Equatable {
    /// `l2cap` or `gatt`; nil when the daemon did not say.
    public var transport: String?
    /// Why a continue fell back to GATT, if it did.
    public var fallback: String?

    /// A path.
    public init(transport: String?, fallback: String?) {
        self.transport = transport
        self.fallback = fallback
    }

    /// `a{ss}`.
    public static var dbusType: DBusType { [String: String].dbusType }

    /// Reads the `a{ss}` path of a continue.
    public init(dbusValue: Value) throws(DBusError) {
        let entries = try [String: String](dbusValue: dbusValue)
        self.init(transport: entries["transport"], fallback: entries["fallback"])
    }

    /// The path as `a{ss}`, `transport` first (a Swift dictionary's order is not fixed).
    public var dbusValue: Value {
        var entries: [DictionaryEntry] = []
        if let transport { entries.append(DictionaryEntry(key: .string("transport"), value: .string(transport))) }
        if let fallback { entries.append(DictionaryEntry(key: .string("fallback"), value: .string(fallback))) }
        return .dictionary(key: .string, value: .string, entries)
    }
}

/// The userInfo of the daemon's API: string dictionaries as the binary property lists it carries as `ay`. Written
/// and read with FoundationEssentials' property list coders (`PropertyListSerialization` is full Foundation, which
/// the daemon, linking this target, does not load: Docs/performance.md, Memory).
public enum BusCoding {
    /// String userInfo as a binary property list, the `ay` the API carries.
    public static func propertyList(_ userInfo: [String: String]) throws -> [UInt8] {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        do {
            return Array(try encoder.encode(userInfo))
        } catch {
            throw DBusError(.invalidValue, "userInfo cannot be written as a property list: \(error)")
        }
    }

    /// A property list's top-level entries as strings: strings as they are, other values as their description.
    /// Throws for bytes that are not a property list with a dictionary at the root.
    public static func stringUserInfo(_ bytes: [UInt8]) throws -> [String: String] {
        let dictionary: [String: Described]
        do {
            dictionary = try PropertyListDecoder().decode([String: Described].self, from: Data(bytes))
        } catch DecodingError.typeMismatch {
            throw DBusError(.invalidValue, "userInfo's property list root is not a dictionary")
        } catch {
            throw DBusError(.invalidValue, "userInfo is not a property list")
        }
        return dictionary.mapValues(\.text)
    }

    /// Any property list value as text: a string as it is, a number, date or boolean as Swift prints it, data as
    /// its size, arrays and dictionaries as Swift prints them with their members described so.
    private struct Described: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.singleValueContainer() {
                if let string = try? container.decode(String.self) { text = string; return }
                if let bool = try? container.decode(Bool.self) { text = String(bool); return }
                if let integer = try? container.decode(Int64.self) { text = String(integer); return }
                if let integer = try? container.decode(UInt64.self) { text = String(integer); return }
                if let double = try? container.decode(Double.self) { text = String(double); return }
                if let date = try? container.decode(Date.self) { text = String(describing: date); return }
                if let data = try? container.decode(Data.self) { text = "\(data.count) bytes"; return }
            }
            if let entries = try? [String: Described](from: decoder) {
                text = String(describing: entries.mapValues(\.text))
            } else {
                text = String(describing: try [Described](from: decoder).map(\.text))
            }
        }
    }
}
