import DBus
import FoundationEssentials
import HandoffKit

/// userInfo as D-Bus values (`a{sv}`), beside the binary property list (`ay`): for a client that reads the bus
/// without a property-list reader, with each value's type kept. The mapping (Docs/dbus-api.md, "userInfo as
/// values"):
///
/// | property list | D-Bus |
/// | --- | --- |
/// | string | `s` |
/// | integer | `x` |
/// | real | `d` |
/// | boolean | `b` |
/// | date | `d`, seconds since 1970-01-01T00:00:00Z (Unix time; the property list's own epoch is 2001) |
/// | data | `ay` |
/// | URL | `s`, its absolute string |
/// | array | `av` |
/// | dictionary | `a{sv}`, entries sorted by key |
///
/// A date and a URL arrive as a real and a string: the D-Bus type system has no date or URL, and a client that
/// needs to tell them apart reads the `ay` form, which keeps every type.
extension BusCoding {
    /// How many containers may nest in a userInfo, its root dictionary counted, for it to be sent as values. D-Bus
    /// refuses a message nested deeper than 64 containers, a variant counting as one; each level of userInfo is two
    /// or three (an array or a dictionary entry, and the variant around it), and the reply that carries it spends a
    /// few more. A deeper userInfo travels only as bytes.
    public static let maximumValueDepth = 16

    /// userInfo's entries as `a{sv}`; nil when it nests deeper than ``maximumValueDepth``.
    public static func values(_ userInfo: [String: PlistValue]) -> [String: Variant]? {
        guard depth(of: .dictionary(userInfo)) <= maximumValueDepth else { return nil }
        return userInfo.mapValues { Variant(value($0)) }
    }

    /// One property-list value as the D-Bus value the table above gives it.
    public static func value(_ plist: PlistValue) -> Value {
        switch plist {
        case .string(let string): .string(string)
        case .integer(let integer): .int64(integer)
        case .real(let real): .double(real)
        case .bool(let bool): .boolean(bool)
        case .date(let date): .double(date.timeIntervalSince1970)
        case .data(let data): .bytes([UInt8](data))
        case .url(let url): .string(url.absoluteString)
        case .array(let items): .array(.variant, items.map { .variant(Variant(value($0))) })
        case .dictionary(let entries):
            .dictionary(key: .string, value: .variant, entries.sorted { $0.key < $1.key }.map {
                DictionaryEntry(key: .string($0.key), value: .variant(Variant(value($0.value))))
            })
        }
    }

    /// How many containers nest in `plist`: 0 for a scalar, 1 for a flat array or dictionary.
    private static func depth(of plist: PlistValue) -> Int {
        switch plist {
        case .array(let items): 1 + (items.map(depth).max() ?? 0)
        case .dictionary(let entries): 1 + (entries.values.map(depth).max() ?? 0)
        default: 0
        }
    }
}
