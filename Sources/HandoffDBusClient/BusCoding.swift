import DBus
import Foundation
import HandoffClient

/// Conversions between the CLI's value types and the D-Bus values of the daemon's API.
public enum BusCoding {
    /// An activity summary as `(ssssdt)`.
    public static func value(_ summary: ActivitySummary) -> Value {
        .structure([
            .string(summary.id.rawValue), .string(summary.type), .string(summary.title), .string(summary.device),
            .double(summary.age), .uint64(UInt64(max(0, summary.size))),
        ])
    }

    /// Reads a `(ssssdt)` activity summary.
    public static func summary(_ value: Value) throws -> ActivitySummary {
        guard case .structure(let fields) = value, fields.count == 6,
            case .string(let id) = fields[0], case .string(let type) = fields[1], case .string(let title) = fields[2],
            case .string(let device) = fields[3], case .double(let age) = fields[4], case .uint64(let size) = fields[5]
        else { throw DBusError(.typeMismatch, "an activity summary must be (ssssdt), got \(value.type)") }
        return ActivitySummary(id: ActivityID(rawValue: id), type: type, title: title, device: device, age: age,
                               size: Int(clamping: size))
    }

    /// A paired device as `(ssbd)`; a device never seen has a negative age.
    public static func value(_ device: DeviceInfo) -> Value {
        .structure([.string(device.id), .string(device.name), .boolean(device.inRange),
                    .double(device.lastSeenSecondsAgo ?? -1)])
    }

    /// Reads a `(ssbd)` device.
    public static func device(_ value: Value) throws -> DeviceInfo {
        guard case .structure(let fields) = value, fields.count == 4, case .string(let id) = fields[0],
            case .string(let name) = fields[1], case .boolean(let inRange) = fields[2],
            case .double(let seen) = fields[3]
        else { throw DBusError(.typeMismatch, "a device must be (ssbd), got \(value.type)") }
        return DeviceInfo(id: id, name: name, inRange: inRange, lastSeenSecondsAgo: seen < 0 ? nil : seen)
    }

    /// String userInfo as a binary property list, the `ay` the API carries.
    public static func propertyList(_ userInfo: [String: String]) throws -> [UInt8] {
        do {
            return Array(try PropertyListSerialization.data(fromPropertyList: userInfo, format: .binary, options: 0))
        } catch {
            throw DBusError(.invalidValue, "userInfo cannot be written as a property list: \(error)")
        }
    }

    /// A property list's top-level entries as strings: strings as they are, other values as their description.
    /// Throws for bytes that are not a property list with a dictionary at the root.
    public static func stringUserInfo(_ bytes: [UInt8]) throws -> [String: String] {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw DBusError(.invalidValue, "userInfo is not a property list")
        }
        guard let dictionary = object as? [String: Any] else {
            throw DBusError(.invalidValue, "userInfo's property list root is not a dictionary")
        }
        return dictionary.mapValues { ($0 as? String) ?? String(describing: $0) }
    }

    /// The path of a continue as `a{ss}`: `transport` (`l2cap`, `gatt`) and, after a fallback, `fallback`.
    public static func value(transport: String, fallback: String?) -> Value {
        var entries = [DictionaryEntry(key: .string("transport"), value: .string(transport))]
        if let fallback { entries.append(DictionaryEntry(key: .string("fallback"), value: .string(fallback))) }
        return .dictionary(key: .string, value: .string, entries)
    }

    /// Reads the `a{ss}` path of a continue; unknown or missing entries are nil.
    public static func transferPath(_ value: Value) -> (transport: String?, fallback: String?) {
        guard case .dictionary(_, _, let entries) = value else { return (nil, nil) }
        var transport: String?
        var fallback: String?
        for entry in entries {
            guard case .string(let name) = entry.key, case .string(let text) = entry.value else { continue }
            if name == "transport" { transport = text }
            if name == "fallback" { fallback = text }
        }
        return (transport, fallback)
    }
}
