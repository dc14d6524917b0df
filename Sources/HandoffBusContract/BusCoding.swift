import DBus
import FoundationEssentials
import HandoffClient
import HandoffKit

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

/// The userInfo of the daemon's API: dictionaries as the binary property lists it carries as `ay`, written and
/// read with HandoffKit's strict ``BinaryPropertyList``, the codec the daemon and the radio use: one codec from end
/// to end, and the bytes a daemon sends are read with the reader that has the bounds for hostile input.
public enum BusCoding {
    /// String userInfo as a binary property list, the `ay` the API carries.
    public static func propertyList(_ userInfo: [String: String]) throws -> [UInt8] {
        do {
            return try BinaryPropertyList.encode(.dictionary(userInfo.mapValues { .string($0) }))
        } catch {
            throw DBusError(.invalidValue, "userInfo cannot be written as a property list", cause: error)
        }
    }

    /// A property list's top-level entries with their types, as HandoffKit reads them. Throws for bytes that are
    /// not a binary property list with a dictionary at the root.
    package static func userInfo(_ bytes: [UInt8]) throws -> [String: PlistValue] {
        do {
            return try BinaryPropertyList.decodeDictionary(bytes)
        } catch .rootNotDictionary {
            throw DBusError(.invalidValue, "userInfo's property list root is not a dictionary")
        } catch {
            throw DBusError(.invalidValue, "userInfo is not a binary property list", cause: error)
        }
    }

    /// A property list's top-level entries as strings, for the CLI's string-keyed kinds: strings as they are,
    /// any other value as ``text(_:)`` writes it.
    public static func stringUserInfo(_ bytes: [UInt8]) throws -> [String: String] {
        try userInfo(bytes).mapValues(text)
    }

    /// A property list's top-level entries both ways the client keeps them, from one reading of the bytes: as
    /// ``stringUserInfo(_:)``'s text, and with their types (``typed(_:)``).
    public static func clientUserInfo(_ bytes: [UInt8]) throws
        -> (text: [String: String], values: [String: UserInfoValue])
    {
        let entries = try userInfo(bytes)
        return (entries.mapValues(text), entries.mapValues(typed))
    }

    /// A property-list value as the client's ``UserInfoValue``: the same cases, one for one.
    package static func typed(_ value: PlistValue) -> UserInfoValue {
        switch value {
        case .string(let string): .string(string)
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .bool(let bool): .bool(bool)
        case .date(let date): .date(date)
        case .data(let data): .data(data)
        case .url(let url): .url(url)
        case .array(let items): .array(items.map(typed))
        case .dictionary(let entries): .dictionary(entries.mapValues(typed))
        }
    }

    /// A value as one line of text: a string as it is, numbers and booleans as Swift prints them, a date in
    /// ISO 8601, data as its size, a URL as its absolute string, containers with their members written so.
    package static func text(_ value: PlistValue) -> String {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .bool(let bool): String(bool)
        case .date(let date): date.formatted(.iso8601)
        case .data(let data): "\(data.count) bytes"
        case .url(let url): url.absoluteString
        case .array(let items): "[" + items.map(text).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "[" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }.joined(separator: ", ") + "]"
        }
    }
}
